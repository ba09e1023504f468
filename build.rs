//! Build facts for `GET /version` (src/build_info.rs): the target triple and
//! Cargo profile, which only build scripts are told. Nothing here depends on
//! the source tree or git, so the script runs once and never forces a rebuild.
fn main() {
    for (var, name) in [
        ("TARGET", "LABELPRESS_TARGET"),
        ("PROFILE", "LABELPRESS_PROFILE"),
    ] {
        let value = std::env::var(var).unwrap_or_default();
        println!("cargo:rustc-env={name}={value}");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
