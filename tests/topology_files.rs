//! Topology files: errors name the file, the line and the item; nothing a
//! file says can make the loader panic; what the generator writes loads back
//! as the same network.

use proptest::prelude::*;
use wormcast::Error;
use wormcast::net::{IrregularParams, Network, Topology};

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("wormcast-topo-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn errors_from_a_file_name_the_file_and_the_line() {
    let p = write(
        "dup.toml",
        "[[switch]]\nid = 0\nports = 2\n\n[[node]]\nid = 0\nat = [0, 0]\n\n[[node]]\nid = 1\nat = [0, 0]\n",
    );
    let e = Network::load(&p).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}: line 9: node #2: port [0, 0] is already used by line 5: node #1",
            p.display()
        )
    );
    assert!(matches!(
        e.root(),
        Error::PortUsedTwice {
            switch: 0,
            port: 0,
            ..
        }
    ));

    let p = write("syntax.toml", "[[switch]]\nid = 0\nports = \n");
    let e = Network::load(&p).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("{}: line 3, column", p.display())),
        "{e}"
    );

    let e = Network::load("/nonexistent/x.toml").unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/x.toml: "), "{e}");
}

fn switches(n: u32) -> Topology {
    let mut t = Topology::default();
    for id in 0..n {
        t.switches.push(wormcast::net::SwitchSpec { id, ports: 2 });
    }
    t.nodes.push(wormcast::net::NodeSpec {
        id: 0,
        at: wormcast::net::PortRef::new(0, 0),
    });
    t
}

#[test]
fn a_network_too_large_for_the_model_is_refused() {
    assert_eq!(
        Network::new(&switches((1 << 20) + 1))
            .unwrap_err()
            .to_string(),
        "the topology has 1048577 switches; wormcast handles at most 1048576"
    );
    // Below the count limit, memory decides: a million switches' routing
    // tables take 2 TB, and their 2 million ports and one node are reckoned
    // at 3 GB.
    let e = Network::new(&switches(1_000_000)).unwrap_err().to_string();
    assert!(
        e.starts_with(
            "the routing tables of 1000000 switches take 2000000 MB (2 x switches² port masks) and the rest of the network about 3072 MB, more than the "
        ) && e.ends_with(" MB of memory available"),
        "{e}"
    );
}

#[test]
fn generated_files_load_back_as_the_same_network() {
    for seed in 0..20 {
        let p = IrregularParams {
            switches: 16,
            ports: 8,
            nodes: 64,
            connectivity: 0.8,
            seed,
        };
        let t = p.generate().unwrap();
        let path = write(&format!("gen{seed}.toml"), "");
        t.save(&path, "generated").unwrap();
        let back = Topology::load(&path).unwrap();
        assert_eq!(
            (&back.switches, &back.links, &back.nodes),
            (&t.switches, &t.links, &t.nodes)
        );
        Network::new(&back).unwrap();
    }
}

/// Strings of TOML-ish tokens: mostly well-formed entries with random values.
fn entry() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..6, 0u32..10).prop_map(|(i, p)| format!("[[switch]]\nid = {i}\nports = {p}\n")),
        (0u32..6, 0u32..10, 0u32..6, 0u32..10)
            .prop_map(|(a, b, c, d)| format!("[[link]]\na = [{a}, {b}]\nb = [{c}, {d}]\n")),
        (0u32..8, 0u32..6, 0u32..10)
            .prop_map(|(i, s, p)| format!("[[node]]\nid = {i}\nat = [{s}, {p}]\n")),
        "[a-z\\[\\]=0-9 \\n\"#,.-]{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random bytes and random entries give a network or an error, never a
    /// panic.
    #[test]
    fn the_loader_never_panics(text in "\\PC{0,200}", entries in proptest::collection::vec(entry(), 0..12)) {
        for t in [text, entries.concat()] {
            if let Ok(topo) = Topology::from_toml_str(&t) {
                let _ = Network::new(&topo).map(|n| wormcast::net::summary::summarize(&n));
            }
        }
    }
}
