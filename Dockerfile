# Chiếu: one bot process. Configuration from the environment (DISCORD_TOKEN, CHIEU_DATABASE)
# and an optional TOML file named by CHIEU_CONFIG; with neither, it runs on SQLite at
# /data/chieu.sqlite3 (the /data volume, the user chieu's). docs/operating.md says more.
# BASE: any Debian-based image with Python 3.11+ and pip (python:3.11-slim from a registry;
# scripts/check-image builds one from Debian's packages where no registry is reached).
ARG BASE=python:3.11-slim

# ---- build: the wheel of Chiếu and of every dependency, at the versions of constraints.txt,
# installed into a virtual environment of its own without pip
FROM ${BASE} AS build
WORKDIR /src
COPY constraints.txt pyproject.toml README.md ./
COPY bot ./bot
COPY cogs ./cogs
COPY rendering ./rendering
RUN python3 -m pip wheel --no-cache-dir --disable-pip-version-check --wheel-dir /wheels \
        -c constraints.txt ".[postgres]" \
    && python3 -m venv --without-pip /opt/chieu \
    && python3 -m pip --python /opt/chieu/bin/python install --no-cache-dir --disable-pip-version-check \
        --no-index --find-links /wheels "chieu[postgres]" \
    && find /opt/chieu -name __pycache__ -prune -exec rm -rf {} +

# ---- the image: the environment, Noto Sans CJK from Debian (Chinese, Japanese and Korean names
# in the pictures), no pip, no sources
FROM ${BASE}
# the package's version (pyproject.toml; tests/unit/test_deployment.py keeps the two equal)
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="Chiếu" \
      org.opencontainers.image.description="A Discord bot for card games among friends: Phỏm, Chắn, Tứ Sắc, Chinchón, Concan" \
      org.opencontainers.image.version="${VERSION}"
RUN apt-get update \
    && apt-get install -y --no-install-recommends fonts-noto-cjk \
    && find /usr/share/fonts/opentype/noto -type f ! -name NotoSansCJK-Regular.ttc -delete \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/* \
    && if dpkg -s python3-pip >/dev/null 2>&1; \
       then apt-get purge -y -q --auto-remove python3-pip python3-setuptools python3-wheel >/dev/null; \
       else python3 -m pip uninstall -y -q pip setuptools wheel; fi \
    && ! python3 -m pip --version 2>/dev/null \
    && useradd --system --uid 10001 --user-group --no-create-home --home-dir /data chieu \
    && mkdir /data && chown chieu:chieu /data
COPY --from=build /opt/chieu /opt/chieu
ENV PATH=/opt/chieu/bin:$PATH PYTHONUNBUFFERED=1
# the default database (chieu.sqlite3) and config.toml are found here
WORKDIR /data
VOLUME /data
USER chieu
# a clean stop takes at most 8 s (bot/stopping.py): give it 10 (compose: stop_grace_period)
STOPSIGNAL SIGTERM
ENTRYPOINT ["chieu"]
