//! The committed C header is exactly what cbindgen generates from the
//! crate, so the header a C or SystemVerilog user compiles against never
//! drifts from the functions the library exports.

#[test]
fn the_committed_header_is_what_cbindgen_generates() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config =
        cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen parses the crate")
        .write(&mut generated);
    let path = format!("{dir}/include/wormcast.h");
    if std::env::var_os("WORMCAST_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write the header");
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{path} differs from what cbindgen generates; regenerate it with \
         WORMCAST_BLESS=1 cargo test -p wormcast-capi --test header"
    );
}
