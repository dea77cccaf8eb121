# InterCode Studio environment image — bash: NL2Bash tasks over a task file system at /testbed (git for the reward's git status).
# Built offline from a local base image (docker/build-base-image.sh installs every tool): bookworm
# for intercode-studio/bash, bullseye for intercode-studio/bash-intercode (the intercode profile's).
ARG BASE_IMAGE=debian:bookworm-slim
FROM ${BASE_IMAGE}
# Task files are copied in per sandbox; the sandbox's rootfs is read-only with tmpfs scratch.
RUN mkdir -p /testbed /workspace && git config --system --add safe.directory '*' \
 && git config --system user.email sandbox@intercode.local && git config --system user.name sandbox
ENV LANG=C.UTF-8 HOME=/root PYTHONDONTWRITEBYTECODE=1
LABEL org.intercode-studio.env=bash
WORKDIR /testbed
CMD ["/bin/bash"]
