//! Makes the pinned solver libraries available: fetches them when missing
//! (scripts/fetch-solvers.sh), links libcvc5 (cvc5-sys skips linking under
//! DOCS_RS) and sets an rpath so binaries and tests run without
//! LD_LIBRARY_PATH. libz3 is linked by z3-sys through Z3_LIBRARY_PATH_OVERRIDE.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let lib = root.join("solvers").join("lib");
    println!("cargo:rerun-if-changed=scripts/fetch-solvers.sh");
    println!("cargo:rerun-if-changed=solvers/lib/.fetched-z3-5.4.0.0-cvc5-1.4.2");
    println!("cargo:rerun-if-changed=build.rs");
    if !lib.join(".fetched-z3-5.4.0.0-cvc5-1.4.2").exists() {
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
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=cvc5");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
}
