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
    assert_eq!(
        e.to_string(),
        "configuration: topology = /nonexistent/x.toml: no such file"
    );
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

/// Lines of an anynet file: mostly `router`/`node` pairs with small ids,
/// latencies and stray words among them.
fn anynet_line() -> impl Strategy<Value = String> {
    let word = prop_oneof![
        4 => (prop_oneof![Just("router"), Just("node")], 0u32..6).prop_map(|(k, i)| format!("{k} {i}")),
        1 => Just("1".to_string()),
        1 => "[a-z0-9-]{0,6}",
    ];
    proptest::collection::vec(word, 0..8).prop_map(|w| w.join(" "))
}

/// A connected network of `routers` routers: a random spanning tree (each
/// router joined to an earlier one) and `extra` more links, with nodes
/// `0..nodes` each on a random router.
fn anynet_network() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, Vec<usize>)> {
    (1usize..8).prop_flat_map(|routers| {
        let tree = (1..routers)
            .map(|r| (0..r).prop_map(move |p| (p, r)))
            .collect::<Vec<_>>();
        let extra = proptest::collection::vec((0..routers, 0..routers), 0..6);
        let nodes = proptest::collection::vec(0..routers, 1..12);
        (Just(routers), tree, extra, nodes).prop_map(|(r, mut links, extra, nodes)| {
            links.extend(extra.into_iter().filter(|(a, b)| a != b));
            (r, links, nodes)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// What an anynet file says gives a network or an error, never a panic.
    #[test]
    fn anynet_text_never_panics(lines in proptest::collection::vec(anynet_line(), 0..10)) {
        if let Ok(topo) = Topology::from_str_any(&lines.join("\n")) {
            let _ = Network::new(&topo).map(|n| wormcast::net::summary::summarize(&n));
        }
    }

    /// However an anynet file lists a connected network (each link from
    /// either end, once or twice; each node from its router's line or its
    /// own), it builds a network in which each router has a port per node
    /// and per neighbour, the nodes first, and the TOML written from it
    /// reads back as the same topology.
    #[test]
    fn an_anynet_network_builds_with_booksims_ports(
        (routers, links, nodes) in anynet_network(),
        from_b in proptest::collection::vec(any::<bool>(), 16),
        node_lines in proptest::collection::vec(any::<bool>(), 12),
    ) {
        let mut text: Vec<String> = (0..routers).map(|r| format!("router {r}")).collect();
        for (i, &(a, b)) in links.iter().enumerate() {
            let (h, t) = if from_b[i % 16] { (b, a) } else { (a, b) };
            text[h].push_str(&format!(" router {t}"));
        }
        for (n, &r) in nodes.iter().enumerate() {
            if node_lines[n] {
                text.push(format!("node {n} router {r}"));
            } else {
                text[r].push_str(&format!(" node {n}"));
            }
        }
        let t = Topology::from_str_any(&text.join("\n")).unwrap();
        let net = Network::new(&t).unwrap();
        prop_assert_eq!(net.num_nodes(), nodes.len());
        let mut neighbours = vec![std::collections::BTreeSet::new(); routers];
        for &(a, b) in &links {
            neighbours[a].insert(b);
            neighbours[b].insert(a);
        }
        for (r, s) in t.switches.iter().enumerate() {
            let own: Vec<usize> = (0..nodes.len()).filter(|&n| nodes[n] == r).collect();
            prop_assert_eq!(s.ports as usize, own.len() + neighbours[r].len());
            for (port, &n) in own.iter().enumerate() {
                prop_assert_eq!(<[u32; 2]>::from(t.nodes[n].at), [r as u32, port as u32]);
            }
        }
        prop_assert_eq!(t.links.len(), neighbours.iter().map(|n| n.len()).sum::<usize>() / 2);
        for l in &t.links {
            let (a, b) = (l.a.switch as usize, l.b.switch as usize);
            let own_a = nodes.iter().filter(|&&r| r == a).count();
            let rank = neighbours[a].iter().position(|&x| x == b).unwrap();
            prop_assert_eq!(l.a.port as usize, own_a + rank);
        }
        let back = Topology::from_toml_str(&t.to_toml_string()).unwrap();
        prop_assert_eq!((&back.switches, &back.links, &back.nodes), (&t.switches, &t.links, &t.nodes));
    }
}
