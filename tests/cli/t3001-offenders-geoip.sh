#!/bin/sh
# lbt-offenders GeoIP/ASN columns from the tiny databases of
# tests/data/geoip (make-mmdb.pl: 203.0.113.0/24 XA AS64496,
# 2001:db8:bad::/48 XB AS64500, 198.51.100.0/24 XC without AS).
. "$(dirname "$0")/lib.sh"

G="$DATA/geoip"
cp "$DATA/analyses/flood.log" .

expect_success 'country and AS columns from both databases' '
	lbt-offenders --geoip "$G/lbt-test-country.mmdb" --geoip "$G/lbt-test-asn.mmdb" \
	    flood.log | cut -f 1,13,14 > out &&
	cat > expect <<-EOT &&
	source	country	asn
	203.0.113.7	XA	AS64496 Documentation Net A
	2001:db8:bad:1::/64	XB	AS64500 Example Net
	198.51.100.10	XC	
	198.51.100.20	XC	
	203.0.113.8	XA	AS64496 Documentation Net A
	2001:db8:bad:2::/64	XB	AS64500 Example Net
	EOT
	test_cmp expect out
'

expect_success 'only an ASN database: no country column' '
	lbt-offenders --geoip "$G/lbt-test-asn.mmdb" --top 1 flood.log > out &&
	head -n 1 out | grep "ratio	asn	evidence" &&
	! grep country out
'

expect_success '--no-geoip: no GeoIP column' '
	lbt-offenders --no-geoip --top 1 flood.log > all && head -n 1 all > out &&
	grep "ratio	evidence" out
'

expect_success 'a missing database is an error naming it' '
	test_expect_code 1 lbt-offenders --geoip nothere.mmdb flood.log > out 2> err &&
	grep "^lbt-offenders: nothere.mmdb: cannot open GeoIP database" err
'

expect_failure 1 '--geoip with --no-geoip is refused' '
	lbt-offenders --no-geoip --geoip "$G/lbt-test-asn.mmdb" flood.log
'
test_done
