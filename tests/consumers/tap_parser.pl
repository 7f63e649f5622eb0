#!/usr/bin/perl
# tap_parser.pl FILE — parses a TAP stream with TAP::Parser, the parser of
# prove, and prints one JSON object: the version, the plan, the numbers of
# the passed, failed and skipped test points, the YAML blocks, the
# bail-out, and the parse errors.
#
# TAP::Parser before 3.48 (Debian bookworm's perl has 3.44) knows no TAP
# version above 13: it reports "TAP specified version 14 but we don't know
# about versions later than 13" and goes on with the version 13 grammar,
# which is what 3.48 does for version 14 without a word. For such a parser
# only, and only that error, is left out of the parse errors (and named in
# "version_note").
use strict;
use warnings;
use JSON::PP;
use TAP::Parser;

my $path = shift @ARGV or die "usage: tap_parser.pl FILE\n";
open my $file, '<:raw', $path or die "tap_parser.pl: $path: $!\n";
my $tap = do { local $/; <$file> };
close $file;

my $parser = TAP::Parser->new({ tap => $tap });
my ($yaml_blocks, $bailout) = (0, undef);
while (my $result = $parser->next) {
    $yaml_blocks++ if $result->is_yaml;
    $bailout = $result->explanation if $result->is_bailout;
}
my $version_error = qr/^TAP specified version 14 but we don't know about versions later than 13$/;
my $old_parser = $TAP::Parser::VERSION < 3.48;
my @errors = $parser->parse_errors;
my @kept = grep { !($old_parser && $_ =~ $version_error) } @errors;
print JSON::PP->new->canonical->encode({
    parser_version => "$TAP::Parser::VERSION",
    version        => $parser->version,
    tests_planned  => $parser->tests_planned,
    tests_run      => $parser->tests_run,
    passed         => [ $parser->passed ],
    failed         => [ $parser->failed ],
    skipped        => [ $parser->skipped ],
    yaml_blocks    => $yaml_blocks,
    bailout        => $bailout,
    parse_errors   => \@kept,
    version_note   => (@kept == @errors ? undef : "TAP::Parser $TAP::Parser::VERSION predates TAP 14 and read it as TAP 13"),
}), "\n";
