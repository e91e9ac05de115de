#!/bin/sh
# make-flood.sh - write flood.log, the lbt-rate / lbt-offenders fixture, in
# HAProxy's `option httplog` format (docs/formats.md, "HAProxy lines"), no syslog header.
#
# 47 seconds from 01/Nov/2025:23:24:00 (UTC).  In every second, in this
# order, one line every 30 ms:
#   198.51.100.10      2 x key A   200   (the normal client of A)
#   203.0.113.7       15 x key A   429 PR--   only in seconds 20..34
#   2001:db8:bad:1::N 13 x key A   500 PT-- Tw 1500, N = 1..d, seconds 20..34
#   203.0.113.8        1 x key B   200   (decoy: same /24 as 203.0.113.7)
#   2001:db8:bad:2::5  1 x key C   200   (decoy: same /48 as the /64)
#   198.51.100.20      1 x key D   200
# So key A runs at 2/s, 30/s from 23:24:20 to 23:24:34, then 2/s again;
# B, C, D stay at 1/s.  5 lines a second outside the flood, 33 inside:
# 20*5 + 15*33 + 12*5 = 655 lines.
A=5bf66975-d4c7-4bf5-bcc8-b8d8a82ea278
B=0a4e6b1c-3f2d-4e5a-9b8c-7d6e5f4a3b2c
C=1b5f7c2d-4a3e-4f6b-8c9d-8e7f6a5b4c3d
D=2c6a8d3e-5b4f-4a7c-9d0e-9f8a7b6c5d4e
awk -v A="$A" -v B="$B" -v C="$C" -v D="$D" '
function line(ip, fe, be, tm, st, term, path,    ms) {
	ms = k * 30; k++; n++
	printf "%s:%d [01/Nov/2025:23:24:%02d.%03d] %s %s %s %d 0 - - %s 30/30/2/1/0 0/0 \"GET %s HTTP/1.1\"\n",
	    ip, 40000 + n, s, ms, fe, be, tm, st, term, path
}
BEGIN {
	ok = "be_app/app1"; deny = "fe_http/<NOSRV>"
	for (s = 0; s < 47; s++) {
		k = 0
		for (i = 0; i < 2; i++) line("198.51.100.10", "fe_http", ok, "0/0/1/2/3", 200, "----", "/" A)
		if (s >= 20 && s < 35) {
			for (i = 0; i < 15; i++)
				line("203.0.113.7", "fe_http", deny, "0/-1/-1/-1/0", 429, "PR--", "/" A)
			for (i = 0; i < 13; i++)
				line(sprintf("2001:db8:bad:1::%x", i + 1), "fe_http", deny,
				    "-1/1500/-1/-1/1500", 500, "PT--", "/" A)
		}
		line("203.0.113.8", "fe_http", ok, "0/0/1/2/3", 200, "----", "/ping/" B)
		line("2001:db8:bad:2::5", "fe_http", ok, "0/0/1/2/3", 200, "----", "/ping/" C)
		line("198.51.100.20", "fe_http", ok, "0/0/1/2/3", 200, "----", "/" D "/start")
	}
}'
