//! Ordering the participants of a multicast on an irregular network so
//! that a k-binomial tree built on the ordering has little link contention
//! (seed 000 section 4.3.4, with the partial ordered chains of Fig. 13).
//!
//! A tree built by the construction of Fig. 10 gives every vertex a range
//! of consecutive places of the ordering; two vertices' messages can only
//! meet on a link if their ranges' paths do. No ordering is contention-free
//! under up*/down* routing (seed 000 reference \[16\]), so the ordering
//! follows the down links instead: the participating switches are split
//! into partial ordered chains (POCs), each a list of switches joined by
//! down links between levels, heaviest (most participants below) first,
//! and the ordering lists the source, then the participants chain by chain,
//! a chain from its top switch down, a switch's nodes by port. A range of
//! consecutive places then lies on one chain, or on the lower part of one
//! chain and the next, and the messages inside it follow the chain's down
//! links, which the messages of another range (on another chain) do not
//! use.
//!
//! The steps of Fig. 13: (1) the DAG of down links between levels (tree
//! links and cross links; same-level links are left out), its children in
//! port order; (2) the participating switches (a destination or the source
//! on them); (3) the DAG reduced to them (a removed switch's parents get its
//! children); (4) each switch's weight, the participants on it and on all
//! its descendants; (5) repeatedly the heaviest remaining switch and then
//! its heaviest remaining child, until none is left, make a chain. Ties go
//! to the lower switch id.

use crate::Result;
use crate::marks::Marks;
use crate::net::{Network, PortConn, UpDown};

/// A participant ordering and the chains it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChainOrder {
    /// The source, then every destination.
    pub order: Vec<u32>,
    /// The chains of switches, in the order they were formed.
    pub chains: Vec<Vec<u32>>,
}

/// The POC ordering of `dests` for a multicast from `source`.
///
/// Lays out the network's down links for this one call; a caller that
/// orders many multicasts on one network keeps a [`PocOrderer`] instead.
pub fn poc_order(net: &Network, ud: &UpDown, source: u32, dests: &[u32]) -> Result<ChainOrder> {
    PocOrderer::new(net, ud).order(source, dests)
}

/// The POC ordering of one network, for multicast after multicast: the
/// down links between levels (step 1) and each switch's nodes in port
/// order are laid out once, and the marks of the later steps are stamps
/// kept from one multicast to the next. An ordering then costs what its
/// participants and the down links below them take, not a walk of every
/// switch and port of the network (which is what one ordering made from
/// scratch costs, [`poc_order`]).
#[derive(Clone, Debug)]
pub struct PocOrderer {
    /// Down links between levels: switch `x`'s lower neighbours, in port
    /// order, are `down[down_at[x]..down_at[x + 1]]`.
    down_at: Vec<u32>,
    down: Vec<u32>,
    /// Switch `x`'s nodes in port order: `nodes[nodes_at[x]..nodes_at[x + 1]]`.
    nodes_at: Vec<u32>,
    nodes: Vec<u32>,
    /// Each node's switch.
    switch_of: Vec<u32>,
    /// Per node: whether it takes part in this ordering.
    node_mark: Marks,
    /// Per switch: whether it takes part in this ordering, and then its
    /// place in `parts`.
    part_mark: Marks,
    part_index: Vec<u32>,
    /// Per switch: whether the current walk reached it.
    walk_mark: Marks,
    /// This ordering's participating switches, and per participant (by
    /// place): its participants (`on`), its nearest participating
    /// descendants (`kids`), its weight and whether a chain took it.
    parts: Vec<u32>,
    on_at: Vec<u32>,
    on: Vec<u32>,
    kids_at: Vec<u32>,
    kids: Vec<u32>,
    weight: Vec<usize>,
    taken: Vec<bool>,
    stack: Vec<u32>,
}

impl PocOrderer {
    /// The down links and nodes of `net` under the up*/down* directions
    /// `ud`.
    pub fn new(net: &Network, ud: &UpDown) -> Self {
        let s = net.num_switches();
        let (mut down_at, mut down) = (Vec::with_capacity(s + 1), Vec::new());
        let (mut nodes_at, mut nodes) = (Vec::with_capacity(s + 1), Vec::new());
        down_at.push(0);
        nodes_at.push(0);
        for x in 0..s as u32 {
            for (p, c) in net.ports_of(x) {
                match c {
                    PortConn::Link { peer, .. }
                        if !ud.goes_up(x, p) && ud.level(peer.switch) > ud.level(x) =>
                    {
                        down.push(peer.switch)
                    }
                    PortConn::Node(d) => nodes.push(d),
                    _ => {}
                }
            }
            down_at.push(down.len() as u32);
            nodes_at.push(nodes.len() as u32);
        }
        let n = net.num_nodes();
        PocOrderer {
            down_at,
            down,
            nodes_at,
            nodes,
            switch_of: (0..n as u32).map(|d| net.node_port(d).switch).collect(),
            node_mark: Marks::new(n),
            part_mark: Marks::new(s),
            part_index: vec![0; s],
            walk_mark: Marks::new(s),
            parts: Vec::new(),
            on_at: Vec::new(),
            on: Vec::new(),
            kids_at: Vec::new(),
            kids: Vec::new(),
            weight: Vec::new(),
            taken: Vec::new(),
            stack: Vec::new(),
        }
    }

    /// The numbers of switches and nodes of the network this was made
    /// for.
    pub fn size(&self) -> (usize, usize) {
        (self.part_index.len(), self.switch_of.len())
    }

    /// The POC ordering of `dests` for a multicast from `source`: what
    /// [`poc_order`] gives on the network this was made for.
    pub fn order(&mut self, source: u32, dests: &[u32]) -> Result<ChainOrder> {
        crate::dests::check(self.switch_of.len() as u32, source, dests)?;
        let (n, s) = (self.switch_of.len(), self.part_index.len());
        self.node_mark.begin(n);
        self.part_mark.begin(s);
        // (2) The participants and their switches.
        self.parts.clear();
        for &d in std::iter::once(&source).chain(dests) {
            self.node_mark.mark(d as usize);
            let x = self.switch_of[d as usize];
            if self.part_mark.mark(x as usize) {
                self.parts.push(x);
            }
        }
        self.parts.sort_unstable();
        let p = self.parts.len();
        self.on.clear();
        self.on_at.clear();
        self.on_at.push(0);
        for (i, &x) in self.parts.iter().enumerate() {
            self.part_index[x as usize] = i as u32;
            let at = self.nodes_at[x as usize] as usize..self.nodes_at[x as usize + 1] as usize;
            for &d in &self.nodes[at] {
                if self.node_mark.is_marked(d as usize) {
                    self.on.push(d);
                }
            }
            self.on_at.push(self.on.len() as u32);
        }
        // (3) The reduced DAG: each participant's nearest participating
        // descendants through switches that do not take part.
        self.kids.clear();
        self.kids_at.clear();
        self.kids_at.push(0);
        for i in 0..p {
            let x = self.parts[i] as usize;
            self.walk_mark.begin(s);
            self.stack.clear();
            self.stack.extend_from_slice(
                &self.down[self.down_at[x] as usize..self.down_at[x + 1] as usize],
            );
            while let Some(y) = self.stack.pop() {
                let y = y as usize;
                if !self.walk_mark.mark(y) {
                    continue;
                }
                if self.part_mark.is_marked(y) {
                    self.kids.push(y as u32);
                } else {
                    self.stack.extend_from_slice(
                        &self.down[self.down_at[y] as usize..self.down_at[y + 1] as usize],
                    );
                }
            }
            self.kids_at.push(self.kids.len() as u32);
        }
        // (4) Weights: the participants on a switch and on all the
        // participating switches below it.
        self.weight.clear();
        for i in 0..p {
            self.walk_mark.begin(s);
            self.walk_mark.mark(self.parts[i] as usize);
            let mut w = self.on_len(i);
            self.stack.clear();
            let (a, b) = (self.kids_at[i] as usize, self.kids_at[i + 1] as usize);
            self.stack.extend_from_slice(&self.kids[a..b]);
            while let Some(y) = self.stack.pop() {
                if !self.walk_mark.mark(y as usize) {
                    continue;
                }
                let j = self.part_index[y as usize] as usize;
                w += self.on_len(j);
                let (a, b) = (self.kids_at[j] as usize, self.kids_at[j + 1] as usize);
                self.stack.extend_from_slice(&self.kids[a..b]);
            }
            self.weight.push(w);
        }
        // (5) Chains, heaviest first; ties to the lower switch.
        self.taken.clear();
        self.taken.resize(p, false);
        let mut chains = Vec::new();
        let mut order = vec![source];
        while let Some(top) = self.heaviest((0..p).filter(|&i| !self.taken[i])) {
            let mut chain = Vec::new();
            let mut at = top;
            loop {
                self.taken[at] = true;
                chain.push(self.parts[at]);
                let (a, b) = (self.on_at[at] as usize, self.on_at[at + 1] as usize);
                order.extend(self.on[a..b].iter().copied().filter(|&d| d != source));
                let kids = self
                    .kids_of(at)
                    .iter()
                    .map(|&y| self.part_index[y as usize] as usize)
                    .filter(|&j| !self.taken[j]);
                match self.heaviest(kids) {
                    Some(next) => at = next,
                    None => break,
                }
            }
            chains.push(chain);
        }
        Ok(ChainOrder { order, chains })
    }

    /// Participant `i`'s nearest participating descendants (switch ids).
    fn kids_of(&self, i: usize) -> &[u32] {
        &self.kids[self.kids_at[i] as usize..self.kids_at[i + 1] as usize]
    }

    /// The number of participants on participant `i`'s switch.
    fn on_len(&self, i: usize) -> usize {
        (self.on_at[i + 1] - self.on_at[i]) as usize
    }

    /// Of the participants `among` (by place), the heaviest; of equal
    /// weights, the lowest switch.
    fn heaviest(&self, among: impl Iterator<Item = usize>) -> Option<usize> {
        among.max_by_key(|&i| (self.weight[i], std::cmp::Reverse(self.parts[i])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::{IrregularParams, test_network};
    use proptest::prelude::*;

    /// The ordering as first written: every step over the whole network,
    /// with sets from the standard library.
    fn reference(net: &Network, ud: &UpDown, source: u32, dests: &[u32]) -> Result<ChainOrder> {
        let n = net.num_nodes() as u32;
        crate::dests::check(n, source, dests)?;
        let seen: std::collections::HashSet<u32> = std::iter::once(source)
            .chain(dests.iter().copied())
            .collect();
        let s = net.num_switches();
        // (1) Down links between levels.
        let down: Vec<Vec<u32>> = (0..s as u32)
            .map(|x| {
                net.ports_of(x)
                    .filter_map(|(p, c)| match c {
                        PortConn::Link { peer, .. }
                            if !ud.goes_up(x, p) && ud.level(peer.switch) > ud.level(x) =>
                        {
                            Some(peer.switch)
                        }
                        _ => None,
                    })
                    .collect()
            })
            .collect();
        // (2) Participants per switch, by port.
        let mut on: Vec<Vec<u32>> = vec![Vec::new(); s];
        for x in 0..s as u32 {
            for (_, c) in net.ports_of(x) {
                if let PortConn::Node(d) = c
                    && seen.contains(&d)
                {
                    on[x as usize].push(d);
                }
            }
        }
        let part: Vec<bool> = on.iter().map(|v| !v.is_empty()).collect();
        // (3) Reduced DAG: each participating switch's nearest participating
        // descendants through non-participating ones.
        let mut kids: Vec<std::collections::BTreeSet<u32>> =
            vec![std::collections::BTreeSet::new(); s];
        for x in 0..s {
            if !part[x] {
                continue;
            }
            let mut stack: Vec<u32> = down[x].clone();
            let mut visited = std::collections::HashSet::new();
            while let Some(y) = stack.pop() {
                if !visited.insert(y) {
                    continue;
                }
                if part[y as usize] {
                    kids[x].insert(y);
                } else {
                    stack.extend(&down[y as usize]);
                }
            }
        }
        // (4) Weights: participants on a switch and all its descendants.
        let weight: Vec<usize> = (0..s)
            .map(|x| {
                if !part[x] {
                    return 0;
                }
                let mut all = std::collections::HashSet::from([x as u32]);
                let mut stack: Vec<u32> = kids[x].iter().copied().collect();
                while let Some(y) = stack.pop() {
                    if all.insert(y) {
                        stack.extend(kids[y as usize].iter().copied());
                    }
                }
                all.iter().map(|&y| on[y as usize].len()).sum()
            })
            .collect();
        // (5) Chains, heaviest first.
        let mut left: std::collections::BTreeSet<u32> =
            (0..s as u32).filter(|&x| part[x as usize]).collect();
        let heaviest = |set: &mut dyn Iterator<Item = u32>| {
            set.max_by_key(|&x| (weight[x as usize], std::cmp::Reverse(x)))
        };
        let mut chains = Vec::new();
        while let Some(top) = heaviest(&mut left.iter().copied()) {
            let mut chain = vec![top];
            left.remove(&top);
            let mut at = top;
            while let Some(next) = heaviest(
                &mut kids[at as usize]
                    .iter()
                    .copied()
                    .filter(|y| left.contains(y)),
            ) {
                chain.push(next);
                left.remove(&next);
                at = next;
            }
            chains.push(chain);
        }
        let mut order = vec![source];
        for chain in &chains {
            for &x in chain {
                order.extend(on[x as usize].iter().copied().filter(|&d| d != source));
            }
        }
        Ok(ChainOrder { order, chains })
    }

    /// 0 - 1, 0 - 2, 1 - 3, 2 - 3 (3 is below both 1 and 2), 3 - 4: one
    /// node per switch on port 0.
    fn diamond() -> Network {
        test_network(
            5,
            4,
            &[
                ((0, 1), (1, 1)),
                ((0, 2), (2, 1)),
                ((1, 2), (3, 1)),
                ((2, 2), (3, 2)),
                ((3, 3), (4, 1)),
            ],
        )
    }

    /// On [`diamond`], from node 1 to all: the chain 0, 1, 3, 4 (weight 5
    /// at 0, 3 at 1 and 2), then the chain 2.
    #[test]
    fn chains_follow_down_links_heaviest_first() {
        let net = diamond();
        let ud = UpDown::new(&net);
        let o = poc_order(&net, &ud, 1, &[0, 2, 3, 4]).unwrap();
        assert_eq!(o.chains, vec![vec![0, 1, 3, 4], vec![2]]);
        assert_eq!(o.order, vec![1, 0, 3, 4, 2]);
        // Switch 3 not participating: 1's child becomes 4 through it.
        let o = poc_order(&net, &ud, 0, &[1, 4]).unwrap();
        assert_eq!(o.chains, vec![vec![0, 1, 4]]);
        assert_eq!(
            poc_order(&net, &ud, 0, &[1, 1]).unwrap_err().to_string(),
            "bad destination list: node 1 is listed twice among the destinations"
        );
        assert_eq!(
            poc_order(&net, &ud, 0, &[9]).unwrap_err().to_string(),
            "node 9 does not exist (the network has nodes 0 to 4)"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// On random irregular networks, multicast after multicast through
        /// one orderer: the same order and chains as the ordering made
        /// from scratch the way it was first written.
        #[test]
        fn an_orderer_kept_between_multicasts_orders_as_the_reference(
            switches in 2u32..48,
            ports in 4u32..10,
            per in 1u32..4,
            connectivity in 0.3f64..1.0,
            seed in any::<u64>(),
            casts in proptest::collection::vec((any::<u32>(), 1usize..40), 1..16),
        ) {
            let params = IrregularParams {
                switches,
                ports,
                nodes: switches * per.min(ports - 2),
                connectivity,
                seed,
            };
            let Some(net) = params.generate().ok().and_then(|t| Network::new(&t).ok()) else {
                return Ok(());
            };
            let ud = UpDown::new(&net);
            let n = net.num_nodes() as u32;
            prop_assume!(n >= 2);
            let mut orderer = PocOrderer::new(&net, &ud);
            for (pick, degree) in casts {
                let source = pick % n;
                // `degree` distinct destinations drawn from `pick`.
                let mut dests = Vec::new();
                let mut x = pick as u64;
                while dests.len() < degree.min(n as usize - 1) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let d = (x >> 33) as u32 % n;
                    if d != source && !dests.contains(&d) {
                        dests.push(d);
                    }
                }
                let want = reference(&net, &ud, source, &dests).unwrap();
                prop_assert_eq!(orderer.order(source, &dests).unwrap(), want);
            }
        }
    }

    /// The marks are stamps: once a stamp wraps, every mark is cleared, so
    /// a switch marked long ago is not taken as taking part now.
    #[test]
    fn an_ordering_after_the_stamps_wrap_starts_clear() {
        let net = diamond();
        let ud = UpDown::new(&net);
        let mut o = PocOrderer::new(&net, &ud);
        let all = o.order(1, &[0, 2, 3, 4]).unwrap();
        let few = o.order(0, &[1, 4]).unwrap();
        for at in [u32::MAX - 1, u32::MAX] {
            o.node_mark.set_stamp(at);
            o.part_mark.set_stamp(at);
            o.walk_mark.set_stamp(at);
            assert_eq!(o.order(0, &[1, 4]).unwrap(), few, "stamps from {at}");
            assert_eq!(o.order(1, &[0, 2, 3, 4]).unwrap(), all, "stamps from {at}");
        }
        // The last ordering left every switch marked with the stamp 1 or 2
        // after the wrap; a first ordering of few participants must not
        // see the others as taking part.
        o.node_mark.set_stamp(u32::MAX);
        o.part_mark.set_stamp(u32::MAX);
        assert_eq!(o.order(0, &[1, 4]).unwrap(), few);
    }
}
