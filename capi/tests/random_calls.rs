//! Random calls through the C ABI, good and bad, as a C testbench or a
//! DPI-C import might make them: every call returns success or a refusal
//! code with its message in `wc_last_error` (never `WC_EPANIC` or
//! `WC_EFAULT`, which would be wormcast's own bugs), and every message a
//! network accepted reaches exactly its destinations.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char};
use wormcast_capi::*;

fn last() -> String {
    // SAFETY: wc_last_error returns a NUL-terminated string.
    unsafe { CStr::from_ptr(wc_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// Checks a call's code: success, or a refusal with a message.
fn check(what: &str, code: i64) -> Result<bool, TestCaseError> {
    if code >= 0 {
        return Ok(true);
    }
    let text = last();
    prop_assert!(
        [WC_EINVAL, WC_ENOTDRAINED].contains(&(code as i32)),
        "{what}: code {code}: {text}"
    );
    prop_assert!(!text.is_empty(), "{what}: code {code} with no message");
    Ok(false)
}

const TOPOLOGIES: &[&str] = &[
    "mesh:4x4",
    "torus:4x4",
    "hypercube:4",
    "irregular:switches=8,ports=8,nodes=32,seed=1",
    "mesh:2x2x2",
    "mesh:0x4",
    "ring:8",
];
const ROUTERS: &[Option<&str>] = &[
    None,
    None,
    Some("tree"),
    Some("wormhole"),
    Some("cut-through"),
    Some("junk"),
];
const KINDS: &[&str] = &["unicast", "ssr", "multi-drop", "bit-string", "junk"];

#[derive(Clone, Debug)]
enum Op {
    /// A message the network should take (its nodes drawn below the
    /// network's size), of `flits` flits.
    Good {
        src: u32,
        dests: Vec<u32>,
        flits: u32,
    },
    /// Anything: nodes out of range, repeated, none.
    Any {
        src: u32,
        dests: Vec<u32>,
        flits: u32,
    },
    /// Destinations as a bit string.
    Mask {
        src: u32,
        mask: Vec<u32>,
        flits: u32,
    },
    /// A hand-built worm.
    Worm {
        src: u32,
        kind: usize,
        dests: Vec<u32>,
        path: Vec<u32>,
        payload: u32,
    },
    Step(u64),
    Drain(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let node = || prop_oneof![4 => 0u32..40, 1 => Just(u32::MAX)];
    let flits = || {
        prop_oneof![
            Just(0u32),
            Just(1),
            Just(3),
            Just(5),
            Just(20),
            Just(70_000)
        ]
    };
    prop_oneof![
        4 => (any::<u32>(), prop::collection::vec(any::<u32>(), 1..6), flits())
            .prop_map(|(src, dests, flits)| Op::Good { src, dests, flits }),
        2 => (node(), prop::collection::vec(node(), 0..5), flits())
            .prop_map(|(src, dests, flits)| Op::Any { src, dests, flits }),
        1 => (node(), prop::collection::vec(any::<u32>(), 0..3), flits())
            .prop_map(|(src, mask, flits)| Op::Mask { src, mask, flits }),
        1 => (
            node(),
            0..KINDS.len(),
            prop::collection::vec(node(), 0..4),
            prop::collection::vec(0u32..10, 0..4),
            prop_oneof![Just(0u32), Just(1), Just(16), Just(1 << 20)],
        )
            .prop_map(|(src, kind, dests, path, payload)| Op::Worm {
                src,
                kind,
                dests,
                path,
                payload
            }),
        2 => prop_oneof![Just(0u64), Just(1), Just(10), Just(100), Just(u64::MAX)].prop_map(Op::Step),
        1 => prop_oneof![Just(0u64), Just(1), Just(100)].prop_map(Op::Drain),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn random_calls_are_refused_with_a_message_or_deliver_exactly(
        topology in 0..TOPOLOGIES.len(),
        router in 0..ROUTERS.len(),
        seed in 0u64..4,
        ops in prop::collection::vec(op(), 1..24),
    ) {
        let topo = CString::new(TOPOLOGIES[topology]).unwrap();
        let router = ROUTERS[router].map(|r| CString::new(r).unwrap());
        let rp = router.as_ref().map_or(std::ptr::null(), |r| r.as_ptr());
        // SAFETY: NUL-terminated strings or null.
        let n = unsafe { wc_net_new(topo.as_ptr(), rp, std::ptr::null(), std::ptr::null(), seed) };
        if n.is_null() {
            prop_assert!(!last().is_empty(), "a null network with no message");
            return Ok(());
        }
        // SAFETY: `n` is live until freed below; every pointer passed
        // points to as many items as its count says.
        unsafe {
            let nodes = wc_net_nodes(n);
            let mut asked: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
            for o in &ops {
                match o {
                    Op::Good { src, dests, flits } => {
                        let src = src % nodes;
                        let mut d: Vec<u32> = dests
                            .iter()
                            .map(|x| x % nodes)
                            .filter(|&x| x != src)
                            .collect();
                        d.sort_unstable();
                        d.dedup();
                        if d.is_empty() {
                            continue;
                        }
                        let id = wc_net_send(n, src, d.as_ptr(), d.len() as u32, *flits);
                        if check(&format!("{o:?}"), id)? {
                            asked.insert(id as u64, d);
                        }
                    }
                    Op::Any { src, dests, flits } => {
                        let id = wc_net_send(n, *src, dests.as_ptr(), dests.len() as u32, *flits);
                        if check(&format!("{o:?}"), id)? {
                            let mut d = dests.clone();
                            d.sort_unstable();
                            asked.insert(id as u64, d);
                        }
                    }
                    Op::Mask { src, mask, flits } => {
                        let id = wc_net_send_mask(n, *src, mask.as_ptr(), mask.len() as u32, *flits);
                        if check(&format!("{o:?}"), id)? {
                            let d = (0..32 * mask.len() as u32)
                                .filter(|&b| mask[(b / 32) as usize] >> (b % 32) & 1 == 1)
                                .collect();
                            asked.insert(id as u64, d);
                        }
                    }
                    Op::Worm { src, kind, dests, path, payload } => {
                        let k = CString::new(KINDS[*kind]).unwrap();
                        let id = wc_net_send_worm(
                            n,
                            *src,
                            k.as_ptr() as *const c_char,
                            dests.as_ptr(),
                            dests.len() as u32,
                            path.as_ptr(),
                            path.len() as u32,
                            *payload,
                        );
                        if check(&format!("{o:?}"), id)? {
                            let mut d = dests.clone();
                            d.sort_unstable();
                            asked.insert(id as u64, d);
                        }
                    }
                    Op::Step(c) => {
                        check(&format!("{o:?}"), wc_net_step(n, *c).into())?;
                    }
                    Op::Drain(c) => {
                        check(&format!("{o:?}"), wc_net_drain(n, *c))?;
                    }
                }
            }
            // Whatever was accepted drains, and arrives where it was sent,
            // once at each destination.
            let end = wc_net_drain(n, 1_000_000);
            prop_assert!(end >= 0, "not drained: {}", last());
            prop_assert_eq!(end as u64, wc_net_cycle(n));
            let mut got: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
            let mut d = WcDelivery::default();
            loop {
                let r = wc_net_next_delivery(n, &mut d);
                prop_assert!(r >= 0, "{}", last());
                if r == 0 {
                    break;
                }
                got.entry(d.msg).or_default().push(d.node);
            }
            for v in got.values_mut() {
                v.sort_unstable();
            }
            prop_assert_eq!(got, asked);
            prop_assert_eq!(wc_net_in_flight(n), 0);
            wc_net_free(n);
        }
    }
}
