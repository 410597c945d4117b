//! The fuzz targets link the solver libraries through arrax: point their
//! run-time search path at the repository's `solvers/lib` (arrax's own
//! build script sets it only for arrax's binaries and tests).

fn main() {
    let dir = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let lib = dir.parent().expect("fuzz/ lies in the repository").join("solvers").join("lib");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
}
