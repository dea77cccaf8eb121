# InterCode Studio environment image — sql: the sqlite3 shell and Python's sqlite3 module, for SQL tasks run in a sandbox.
# Built offline from the local base image (docker/build-base-image.sh installs every tool).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
# Task files are copied in per sandbox; the sandbox's rootfs is read-only with tmpfs scratch.
RUN mkdir -p /workspace /workspace && git config --system --add safe.directory '*' \
 && git config --system user.email sandbox@intercode.local && git config --system user.name sandbox
ENV LANG=C.UTF-8 HOME=/root PYTHONDONTWRITEBYTECODE=1
LABEL org.intercode-studio.env=sql
WORKDIR /workspace
CMD ["/bin/bash"]
