#!/bin/sh
# Run the lab from `make check` when this machine allows it, else say why not.
if [ "$(id -u)" -ne 0 ]; then
	echo "lab: skipped: needs root to create a network namespace (run make check-lab as root)"; exit 0
fi
if ! ip netns add lbt-probe-$$ 2>/dev/null; then
	echo "lab: skipped: this machine refuses network namespaces (ip netns add failed)"; exit 0
fi
ip netns del lbt-probe-$$
exec make --no-print-directory check-lab
