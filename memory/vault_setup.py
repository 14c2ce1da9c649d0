"""Choosing the vault from the settings: the one place that knows both adapters (`memory.vault`)."""

from __future__ import annotations

from pathlib import Path

from config.settings import VaultSettings
from memory.vault import FolderVault, Vault

__all__ = ["vault_from_settings"]


def vault_from_settings(settings: VaultSettings, data_dir: Path) -> Vault:
    """Return the vault the settings name: an S3-compatible store when an endpoint is set, else the folder
    (`vault.folder`, default `data_dir/sources`). Called by the composition root and the doctor."""
    if settings.s3_endpoint is not None:
        from memory.vault_s3 import S3Vault  # loads the S3 client only where it is used

        return S3Vault(
            settings.s3_endpoint,
            settings.s3_bucket,
            access_key=settings.s3_access_key.get_secret_value() if settings.s3_access_key else None,
            secret_key=settings.s3_secret_key.get_secret_value() if settings.s3_secret_key else None,
            region=settings.s3_region,
            prefix=settings.s3_prefix,
        )
    return FolderVault(settings.folder or data_dir / "sources")
