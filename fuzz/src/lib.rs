//! What every fuzz target checks: reading arbitrary bytes in one input
//! format never panics (a located parse error is fine), and a system that
//! is read prints canonically to a text that reads back to the same print.
//! The work runs on a thread with the command line's stack
//! ([`arrax::driver::on_large_stack`]), as `arrax parse` runs it.

use arrax::frontend::{canonical, parse_str, Format};

/// Reads `data` (when it is UTF-8) in `format`; on success checks the
/// canonical round trip. Panics only on a violated property.
pub fn parse_and_round_trip(data: &[u8], format: Format) {
    let Ok(src) = std::str::from_utf8(data) else { return };
    arrax::driver::on_large_stack(|| round_trip(src, format)).expect("a worker thread");
}

fn round_trip(src: &str, format: Format) {
    let parsed = match parse_str(src, format) {
        Ok(p) => p,
        Err(d) => {
            assert!(d.line >= 1 && d.col >= 1 && !d.message.is_empty(), "malformed diagnostic {d:?}");
            return;
        }
    };
    let printed = canonical::print(&parsed.system);
    let again = match parse_str(&printed, Format::Canonical) {
        Ok(p) => p,
        Err(d) => panic!("the canonical print does not read back ({d}):\n{printed}"),
    };
    assert_eq!(canonical::print(&again.system), printed, "the canonical print changes when read back");
}
