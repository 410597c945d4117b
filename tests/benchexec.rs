//! The BenchExec tool-info module (`contrib/benchexec/arrax.py`): its
//! Python unit test, run against the built binary. The test skips itself
//! with a message where BenchExec is not installed (`pip install
//! benchexec`); without Python 3 this test says so and passes.

use std::process::Command;

#[test]
fn tool_info_module_unit_test() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = match Command::new("python3")
        .args(["-m", "unittest", "-v", "contrib/benchexec/test_arrax.py"])
        .current_dir(root)
        .env("ARRAX_BIN", env!("CARGO_BIN_EXE_arrax"))
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipped: python3 is not available ({e})");
            return;
        }
    };
    let text = String::from_utf8_lossy(&out.stderr);
    eprintln!("{text}");
    assert!(out.status.success(), "the tool-info module's unit test failed:\n{text}");
}
