//! Fuzz target: the CHC front end (Horn clauses in SMT-LIB) never panics, and what it reads
//! round-trips through the canonical print.
#![no_main]

use arrax::frontend::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| arrax_fuzz::parse_and_round_trip(data, Format::Chc));
