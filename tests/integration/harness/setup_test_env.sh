#!/usr/bin/env bash
# System packages the integration tests need: Slurm (slurm-wlm + munge), Neovim
# (the language server in a real editor), the OpenSSH server and rsync (the "remote"
# cluster reached over SSH) and the linter shellcheck. Installs only what is missing.
# Without root it explains and exits 0, so the unit tests still run.
set -euo pipefail

PACKAGES=(slurm-wlm munge shellcheck neovim openssh-server rsync)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup_test_env: ${PACKAGES[*]} already installed"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup_test_env: not root, cannot install ${missing[*]}; the Slurm, shellcheck, Neovim and SSH tests will be skipped" >&2
  exit 0
fi

# policy-rc.d exit 101 keeps the packages' postinst from starting daemons
made_policy=0
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
  chmod 755 /usr/sbin/policy-rc.d
  made_policy=1
fi
trap '[ $made_policy = 0 ] || rm -f /usr/sbin/policy-rc.d' EXIT

echo "setup_test_env: installing ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  -o Dpkg::Use-Pty=0 "${missing[@]}"
