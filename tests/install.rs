//! The binary finds the solver libraries without the checkout: its
//! RUNPATH names the folder beside it and a per-user folder that the build
//! filled with every solver library the binary needs.

use std::process::Command;

#[test]
fn runpath_reaches_the_libraries_outside_the_checkout() {
    let exe = env!("CARGO_BIN_EXE_arrax");
    let out = Command::new("readelf").args(["-d", exe]).output().expect("readelf (binutils) is needed for this test");
    let dynamic = String::from_utf8_lossy(&out.stdout);
    let runpath = dynamic.lines().find(|l| l.contains("(RUNPATH)")).unwrap_or_else(|| panic!("no RUNPATH in\n{dynamic}"));
    let dirs: Vec<&str> = runpath.split('[').nth(1).and_then(|r| r.split(']').next()).expect("a RUNPATH value").split(':').collect();
    assert!(dirs.contains(&"$ORIGIN"), "{runpath}");
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("solvers");
    let needed: Vec<String> = dynamic
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| l.split('[').nth(1).and_then(|r| r.split(']').next()).map(str::to_string))
        .filter(|n| checkout.join("lib").join(n).exists())
        .collect();
    assert!(needed.iter().any(|n| n.starts_with("libz3")) && needed.iter().any(|n| n.starts_with("libcvc5")), "{needed:?}");
    let outside = dirs.iter().filter(|d| !d.starts_with('$') && !d.starts_with(checkout.to_str().unwrap()));
    let holding = outside.clone().find(|d| needed.iter().all(|n| std::path::Path::new(d).join(n).exists()));
    assert!(holding.is_some(), "no folder outside the checkout holds {needed:?}: {runpath}");
}
