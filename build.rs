//! Makes the pinned solver libraries and the z3 executable available:
//! fetches them when missing
//! (scripts/fetch-solvers.sh), links libcvc5 (cvc5-sys skips linking under
//! DOCS_RS), copies the libraries to a stable per-user folder and sets the
//! binaries' RUNPATH so that they run without LD_LIBRARY_PATH — from the
//! checkout, after `cargo install`, and wherever the binary is copied:
//! `$ORIGIN` (libraries beside the binary), `$ORIGIN/../lib/arrax`, the
//! per-user folder (`$ARRAX_LIB_DIR` at build time, else
//! `$XDG_DATA_HOME/arrax/<versions>/lib`, else
//! `~/.local/share/arrax/<versions>/lib`), then the checkout's
//! `solvers/lib`. libz3 is linked by z3-sys through Z3_LIBRARY_PATH_OVERRIDE.
//! The code is told where the z3 executable is (`ARRAX_Z3`, for `bench
//! --peer spacer` and the tests).
use std::path::{Path, PathBuf};
use std::process::Command;

/// The pinned versions, as the fetch script's stamp names them.
const VERSIONS: &str = "z3-5.4.0.0-cvc5-1.4.2";

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let lib = root.join("solvers").join("lib");
    let stamp = format!(".fetched-{VERSIONS}");
    println!("cargo:rerun-if-changed=scripts/fetch-solvers.sh");
    println!("cargo:rerun-if-changed=solvers/lib/{stamp}");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=ARRAX_LIB_DIR");
    let z3 = root.join("solvers").join("bin").join("z3");
    println!("cargo:rerun-if-changed=solvers/bin/z3");
    if !lib.join(&stamp).exists() || !z3.exists() {
        let status = Command::new("bash").arg(root.join("scripts").join("fetch-solvers.sh")).status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => panic!("scripts/fetch-solvers.sh failed ({s}); run it by hand to see why"),
            Err(e) => panic!("could not run scripts/fetch-solvers.sh: {e}"),
        }
    }
    println!("cargo:rustc-env=ARRAX_Z3={}", z3.display());
    println!("cargo:rustc-link-search=native={}", lib.display());
    println!("cargo:rustc-link-lib=dylib=cvc5");
    // new dynamic tags: RUNPATH, searched after LD_LIBRARY_PATH
    println!("cargo:rustc-link-arg=-Wl,--enable-new-dtags");
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN:$ORIGIN/../lib/arrax");
    match installed(&lib) {
        Ok(dir) => println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display()),
        Err(e) => println!("cargo:warning=could not copy the solver libraries to a per-user folder ({e}); binaries need this checkout's solvers/lib"),
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib.display());
}

/// The per-user folder of the libraries, filled from `lib` when a file is
/// missing or differs in size.
fn installed(lib: &Path) -> std::io::Result<PathBuf> {
    let dir = match std::env::var_os("ARRAX_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let data =
                std::env::var_os("XDG_DATA_HOME").map(PathBuf::from).or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local").join("share")));
            data.ok_or_else(|| std::io::Error::other("neither XDG_DATA_HOME nor HOME is set"))?.join("arrax").join(VERSIONS).join("lib")
        }
    };
    std::fs::create_dir_all(&dir)?;
    for e in std::fs::read_dir(lib)? {
        let p = e?.path();
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.contains(".so") {
            continue;
        }
        let to = dir.join(name);
        let same = std::fs::metadata(&to).ok().zip(std::fs::metadata(&p).ok()).is_some_and(|(a, b)| a.len() == b.len());
        if !same {
            // through a temporary name, so that a running binary never sees half a library
            let tmp = dir.join(format!(".{name}.{}", std::process::id()));
            std::fs::copy(&p, &tmp)?;
            std::fs::rename(&tmp, &to)?;
        }
    }
    Ok(dir)
}
