# Chiếu: one bot process. Configuration comes from the environment (DISCORD_TOKEN,
# CHIEU_DATABASE) and an optional TOML file named by CHIEU_CONFIG (see compose.yaml).
FROM python:3.11-slim

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY rendering ./rendering
# a plain install, as Python packages are deployed: the catalogs are read from the .po files
RUN pip install --no-cache-dir . \
    && useradd --system --no-create-home chieu
USER chieu
ENTRYPOINT ["chieu"]
