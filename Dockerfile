# Chiếu: one bot process. Configuration comes from the environment (DISCORD_TOKEN,
# CHIEU_DATABASE) and an optional TOML file named by CHIEU_CONFIG (see compose.yaml).
# BASE: any image with Python 3.11+ and pip that installs system-wide (python:3.11-slim from a
# registry; scripts/check-image builds one from Debian's packages where no registry is reached).
ARG BASE=python:3.11-slim
FROM ${BASE}

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY rendering ./rendering
# a plain install, as Python packages are deployed: the catalogs are read from the .po files;
# with the cjk extra, for Chinese, Japanese and Korean names in the pictures (32 MB)
RUN pip install --no-cache-dir ".[cjk]" \
    && useradd --system --no-create-home chieu
USER chieu
ENTRYPOINT ["chieu"]
