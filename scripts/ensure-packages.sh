#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ensure-packages.sh PKG... — install the Debian packages that are missing
# (as root, with apt-get). Used by run-demo.sh and run-tests.sh. Others may
# be installing at the same time: wait for the dpkg lock instead of failing.
set -eu
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "installing:$missing"
apt-get -o DPkg::Lock::Timeout=900 update -qq
DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
	install -y -qq $missing >/dev/null
