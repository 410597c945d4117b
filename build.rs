//! Makes the pinned solver libraries and the z3 executable available:
//! fetches them when missing (scripts/fetch-solvers.sh), links libcvc5
//! (cvc5-sys skips linking under DOCS_RS), sets an rpath so binaries and
//! tests run without LD_LIBRARY_PATH, and tells the code where the z3
//! executable is (`ARRAX_Z3`, for `bench --peer spacer` and the tests).
//! libz3 is linked by z3-sys through Z3_LIBRARY_PATH_OVERRIDE.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let lib = root.join("solvers").join("lib");
    println!("cargo:rerun-if-changed=scripts/fetch-solvers.sh");
    println!("cargo:rerun-if-changed=solvers/lib/.fetched-z3-5.4.0.0-cvc5-1.4.2");
    println!("cargo:rerun-if-changed=build.rs");
    let z3 = root.join("solvers").join("bin").join("z3");
    println!("cargo:rerun-if-changed=solvers/bin/z3");
    if !lib.join(".fetched-z3-5.4.0.0-cvc5-1.4.2").exists() || !z3.exists() {
        let status = Command::new("bash")
            .arg(root.join("scripts").join("fetch-solvers.sh"))
            .status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => panic!(
                "scripts/fetch-solvers.sh failed ({s}); run it by hand to see why"
            ),
            Err(e) => panic!("could not run scripts/fetch-solvers.sh: {e}"),
        }
    }
    println!("cargo:rustc-env=ARRAX_Z3={}", z3.display());
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=cvc5");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
}
