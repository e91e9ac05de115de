#!/usr/bin/perl
# make-mmdb.pl - write the two tiny MaxMind DB files used by check_geoip and
# the lbt-offenders CLI tests, from documentation ranges only (RFC 5737,
# RFC 3849; AS numbers 64496-64511 are reserved for documentation, RFC 5398;
# country codes XA-XZ are ISO 3166 user-assigned).
#
#   perl make-mmdb.pl DIR     -> DIR/lbt-test-country.mmdb, DIR/lbt-test-asn.mmdb
#
# Needs Debian's libmaxmind-db-writer-perl.  Expected lookups:
#   203.0.113.0/24     country XA   AS64496 "Documentation Net A"
#   2001:db8:bad::/48  country XB   AS64500 "Example Net"
#   198.51.100.0/24    country XC   (no ASN entry)
#   anything else      nothing
use strict;
use warnings;
use MaxMind::DB::Writer::Tree;

my $dir = shift // '.';

# A tree with the settings both files share.
sub tree {
	my ($type, $types) = @_;
	return MaxMind::DB::Writer::Tree->new(
		ip_version               => 6,
		record_size              => 24,
		database_type            => $type,
		languages                => ['en'],
		description              => { en => "lbtriage test data ($type)" },
		map_key_type_callback    => sub { $types->{ $_[0] } },
		remove_reserved_networks => 0,
		alias_ipv6_to_ipv4       => 1,
	);
}

# Write a tree to a file.
sub save {
	my ($t, $path) = @_;
	open my $fh, '>:raw', $path or die "$path: $!\n";
	$t->write_tree($fh);
	close $fh or die "$path: $!\n";
}

my $c = tree('LBT-Test-Country', { country => 'map', iso_code => 'utf8_string' });
$c->insert_network('203.0.113.0/24', { country => { iso_code => 'XA' } });
$c->insert_network('2001:db8:bad::/48', { country => { iso_code => 'XB' } });
$c->insert_network('198.51.100.0/24', { country => { iso_code => 'XC' } });
save($c, "$dir/lbt-test-country.mmdb");

my $a = tree('LBT-Test-ASN', {
	autonomous_system_number       => 'uint32',
	autonomous_system_organization => 'utf8_string',
});
$a->insert_network('203.0.113.0/24', {
	autonomous_system_number => 64496, autonomous_system_organization => 'Documentation Net A' });
$a->insert_network('2001:db8:bad::/48', {
	autonomous_system_number => 64500, autonomous_system_organization => 'Example Net' });
save($a, "$dir/lbt-test-asn.mmdb");
