//! `wormcast demo`: the main demonstration, a small network run end to end.

use super::*;

pub(crate) fn demo(out: &Path) -> Result<()> {
    wormcast::make_dir(out)?;
    let params = IrregularParams::default();
    let topo = params.generate()?;
    let topo_path = out.join("net.toml");
    topo.save(
        &topo_path,
        "the default network: 8 switches of 8 ports, 32 nodes, 80% connectivity, seed 1",
    )?;
    let net = Network::new(&topo)?;
    println!("== network ({})", topo_path.display());
    print!("{}", summarize(&net).to_text());

    // A traced run of the first 2,000 cycles.
    let cfg = SimConfig::default();
    let traffic = Traffic::uniform(0.05, 20);
    let mut sys = System::new(&net, &cfg, &traffic)?;
    let vcd = out.join("demo.vcd");
    sys.attach_tracer(wormcast::wave::create(&vcd, "wormcast demo, seed 1")?)?;
    sys.run(2_000)?;
    let h = sys.finish_trace_hierarchy()?.expect("tracing is on");
    let Some(views) = write_views(&vcd, &h)? else {
        return Err(Error::Wave(format!(
            "{}: not a regular file, so no views beside it",
            vcd.display()
        )));
    };
    println!(
        "\n== waveform: {} ({} signals); open it with: gtkwave {} (or surfer -c {})",
        vcd.display(),
        h.signals.len(),
        views.gtkw.display(),
        views.sucl.display()
    );
    if let Some(note) = views.note() {
        eprintln!("note: {note}");
    }

    // Latency and throughput against load, untraced.
    println!("\n== uniform traffic, 128-flit packets, 200,000 cycles after 50,000 of warm-up");
    println!(
        "{:>6} {:>10} {:>10} {:>12} {:>10}",
        "load", "offered", "accepted", "avg latency", "max"
    );
    let (mut latency, mut accepted) = (Series::default(), Series::default());
    latency.name = "uniform, 128-flit packets".into();
    latency.color = (0, 90, 200);
    accepted.name = latency.name.clone();
    accepted.color = latency.color;
    for load in [0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3] {
        let mut sys = System::new(&net, &cfg, &Traffic::uniform(load, 128))?;
        sys.run(50_000)?;
        sys.start_window();
        sys.run(200_000)?;
        let r = sys.report();
        // Saturated: the network delivers clearly less than is offered, and
        // the latency measured is that of a growing queue.
        let saturated = r.accepted_throughput < 0.95 * r.offered_load;
        println!(
            "{:>6.2} {:>10.4} {:>10.4} {:>12.1} {:>10}{}",
            load,
            r.offered_load,
            r.accepted_throughput,
            r.avg_latency,
            r.max_latency,
            if saturated { "  saturated" } else { "" }
        );
        if saturated {
            latency.saturated.push(r.offered_load);
        } else {
            latency.points.push((r.offered_load, r.avg_latency));
        }
        accepted
            .points
            .push((r.offered_load, r.accepted_throughput));
    }
    let panels = [
        Panel {
            label: "Latency".into(),
            x_desc: "Offered load (flits/node/cycle)".into(),
            y_desc: "Average latency (cycles)".into(),
            series: vec![latency],
        },
        Panel {
            label: "Throughput".into(),
            x_desc: "Offered load (flits/node/cycle)".into(),
            y_desc: "Accepted throughput (flits/node/cycle)".into(),
            series: vec![accepted],
        },
    ];
    let plots = wormcast::experiment::write_plots(
        "The default 32-node network under uniform traffic",
        "Points: one 200,000-cycle run each, after 50,000 cycles of warm-up. \
         x on the axis: saturated (accepted below 95% of offered), no latency drawn.",
        &panels,
        &out.join("demo_load"),
    )?;
    for p in &plots {
        println!("plot: {}", p.display());
    }

    // One multicast from node 0 to the 31 others through the NIs.
    println!("\n== multicast from node 0 to all 31 others (hosts and NIs, seed 000 section 4)");
    println!(
        "{:>7} {:>30} {:>10} {:>12}",
        "packets", "tree and scheme", "latency", "timing model"
    );
    let ni_cfg = SimConfig {
        node_model: NodeModel::Ni,
        ..SimConfig::default()
    };
    let dests: Vec<u32> = (1..32).collect();
    let order = poc_order(&net, &UpDown::new(&net), 0, &dests)?.order;
    for m in [1u32, 4] {
        let best = optimal_k(32, m)?.k;
        for (name, k, scheme) in [
            ("binomial, conventional", 5, Scheme::Conventional),
            (
                "binomial, smart NI FPFS",
                5,
                Scheme::SmartNi(Discipline::Fpfs),
            ),
            (
                "optimal k-binomial, FPFS",
                best,
                Scheme::SmartNi(Discipline::Fpfs),
            ),
        ] {
            let tree = Tree::kbinomial(&order, k)?;
            let mut sys = System::new(&net, &ni_cfg, &Traffic::Idle)?;
            let pred = sys.predict_multicast(&tree, m, scheme)?.latency;
            let id = sys.multicast(tree, m, scheme)?;
            let lat = sys
                .finish_multicast(id, 1_000_000)?
                .latency
                .expect("finished");
            let label = if name.starts_with("optimal") {
                format!("{name} (k={k})")
            } else {
                name.to_string()
            };
            println!("{m:>7} {label:>30} {lat:>10} {pred:>12}");
        }
    }
    Ok(())
}
