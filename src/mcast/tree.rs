//! Multicast trees and the step schedule of seed 000 section 4.3.2.
//!
//! A [`Tree`] lists its vertices in preorder (vertex 0 is the root, the
//! multicast's source); each vertex knows its node and its children in the
//! order it serves them. [`Tree::steps`] runs the paper's step model: in
//! each step every network interface sends one packet to one child, and a
//! packet received in step `t` can be forwarded from step `t + 1`
//! (Lemma 1). With first-packet-first-served forwarding (FPFS) an `m`-packet
//! multicast over a tree whose root has the most children takes
//! `L1 + (m - 1) * delta_r` steps (Theorem 2).

use crate::{Error, Result};
use std::collections::HashMap;

/// How a network interface orders the copies it forwards (seed 000 Fig. 6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Discipline {
    /// First-child-first-served: every packet to the first child, then
    /// every packet to the second, ...
    Fcfs,
    /// First-packet-first-served: the first packet to every child, then the
    /// second, ...
    Fpfs,
}

/// A multicast tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// Node of each vertex, in preorder.
    nodes: Vec<u32>,
    /// Parent vertex of each vertex (`usize::MAX` for the root).
    parent: Vec<usize>,
    /// Children of each vertex, in serving order.
    children: Vec<Vec<usize>>,
}

fn bad_tree(what: String) -> Error {
    Error::BadTree(what)
}

impl Tree {
    /// A tree from each vertex's children, given as node ids: `root` and
    /// `children[x]` = the children of node `x` in serving order. Every
    /// node must appear once, and be reachable from the root.
    pub fn from_children(root: u32, children: &[(u32, Vec<u32>)]) -> Result<Tree> {
        let mut kids: HashMap<u32, &Vec<u32>> = HashMap::new();
        for (x, c) in children {
            if kids.insert(*x, c).is_some() {
                return Err(bad_tree(format!("node {x} has two lists of children")));
            }
        }
        let mut t = Tree {
            nodes: Vec::new(),
            parent: Vec::new(),
            children: Vec::new(),
        };
        let mut seen: HashMap<u32, usize> = HashMap::new();
        // Preorder, iteratively: (node, parent vertex).
        let mut stack = vec![(root, usize::MAX)];
        while let Some((x, p)) = stack.pop() {
            if seen.contains_key(&x) {
                return Err(bad_tree(format!("the tree names node {x} twice")));
            }
            let v = t.nodes.len();
            seen.insert(x, v);
            t.nodes.push(x);
            t.parent.push(p);
            t.children.push(Vec::new());
            if p != usize::MAX {
                t.children[p].push(v);
            }
            if let Some(c) = kids.get(&x) {
                for &y in c.iter().rev() {
                    stack.push((y, v));
                }
            }
        }
        for x in kids.keys() {
            if !seen.contains_key(x) {
                return Err(bad_tree(format!(
                    "node {x} has children but is not in the tree under root {root}"
                )));
            }
        }
        Ok(t)
    }

    /// The k-binomial tree of seed 000 Fig. 10 over `order` (the source
    /// first): a vertex covering `len` places of the ordering with `s`
    /// steps left sends first to the vertex `N(s - 1, k)` places from the
    /// right end of its range, then `N(s - 2, k)` places before that one,
    /// and so on; every child covers the places to its right recursively.
    /// `k` from 1 (a linear chain) to `ceil(log2 n)` (the binomial tree).
    pub fn kbinomial(order: &[u32], k: u32) -> Result<Tree> {
        check_order(order)?;
        let n = order.len() as u64;
        if k == 0 {
            return Err(bad_tree("a k-binomial tree needs k >= 1".into()));
        }
        let s = super::steps_to_cover(n, k);
        let mut t = Tree {
            nodes: Vec::with_capacity(order.len()),
            parent: Vec::with_capacity(order.len()),
            children: Vec::with_capacity(order.len()),
        };
        // (first place, places, steps left, parent vertex), preorder.
        let mut stack = vec![(0usize, order.len(), s, usize::MAX)];
        while let Some((at, len, s, p)) = stack.pop() {
            let v = t.nodes.len();
            t.nodes.push(order[at]);
            t.parent.push(p);
            t.children.push(Vec::new());
            if p != usize::MAX {
                t.children[p].push(v);
            }
            // Children in serving order: the rightmost range first.
            let mut kids = Vec::new();
            let mut remaining = len;
            let mut i = 1;
            while remaining > 1 {
                debug_assert!(i <= k && i <= s, "a k-binomial range fits its steps");
                let cover = super::covered(s - i, k).min((remaining - 1) as u64) as usize;
                kids.push((at + remaining - cover, cover, s - i));
                remaining -= cover;
                i += 1;
            }
            // Pushed in reverse so that the first child is visited first.
            for (c_at, c_len, c_s) in kids.into_iter().rev() {
                stack.push((c_at, c_len, c_s, v));
            }
        }
        Ok(t)
    }

    /// The binomial tree over `order` (k = ceil(log2 n)).
    pub fn binomial(order: &[u32]) -> Result<Tree> {
        Tree::kbinomial(order, super::log2_ceil(order.len() as u64).max(1))
    }

    /// The linear chain over `order` (k = 1).
    pub fn linear(order: &[u32]) -> Result<Tree> {
        Tree::kbinomial(order, 1)
    }

    /// Checks that every node exists in a network of `nodes` nodes.
    pub fn check_nodes(&self, nodes: u32) -> Result<()> {
        match self.nodes.iter().find(|&&x| x >= nodes) {
            Some(x) => Err(Error::UnknownNode {
                node: *x as u64,
                nodes,
            }),
            None => Ok(()),
        }
    }

    /// Number of vertices (the source and its destinations).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True for a tree of the source alone.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The source node.
    pub fn root(&self) -> u32 {
        self.nodes[0]
    }

    /// Nodes in preorder.
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// Node of vertex `v`.
    pub fn node(&self, v: usize) -> u32 {
        self.nodes[v]
    }

    /// Children of vertex `v`, in serving order.
    pub fn children(&self, v: usize) -> &[usize] {
        &self.children[v]
    }

    /// Parent of vertex `v` (`None` for the root).
    pub fn parent(&self, v: usize) -> Option<usize> {
        (self.parent[v] != usize::MAX).then_some(self.parent[v])
    }

    /// The vertex of node `x`.
    pub fn vertex_of(&self, x: u32) -> Option<usize> {
        self.nodes.iter().position(|&y| y == x)
    }

    /// The most children any vertex has.
    pub fn max_degree(&self) -> usize {
        self.children.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Vertices of the subtree of `v` (preorder: `v` and the next
    /// `size - 1` vertices).
    pub fn subtree_size(&self, v: usize) -> usize {
        let mut n = 1;
        let mut stack: Vec<usize> = self.children[v].clone();
        while let Some(c) = stack.pop() {
            n += 1;
            stack.extend_from_slice(&self.children[c]);
        }
        n
    }

    /// True when no vertex has more children than any of its ancestors
    /// (the trees of Theorems 1 and 2).
    pub fn degrees_never_grow(&self) -> bool {
        (1..self.len()).all(|v| {
            let mut a = self.parent[v];
            while a != usize::MAX {
                if self.children[a].len() < self.children[v].len() {
                    return false;
                }
                a = self.parent[a];
            }
            true
        })
    }

    /// The step model: the step in which each vertex receives each of `m`
    /// packets (the root has them at step 0), when every interface sends
    /// one packet per step in the order of `discipline` and forwards a
    /// packet from the step after it arrived.
    pub fn steps(&self, m: u32, discipline: Discipline) -> StepSchedule {
        let n = self.len();
        let mut got = vec![vec![0u32; m as usize]; n];
        // Preorder: a parent is scheduled before its children.
        for v in 0..n {
            let mut free = 1u32; // the first step this interface can send in
            let kids = &self.children[v];
            let order: Vec<(usize, usize)> = match discipline {
                Discipline::Fpfs => (0..m as usize)
                    .flat_map(|j| kids.iter().map(move |&c| (j, c)))
                    .collect(),
                Discipline::Fcfs => kids
                    .iter()
                    .flat_map(|&c| (0..m as usize).map(move |j| (j, c)))
                    .collect(),
            };
            for (j, c) in order {
                let t = free.max(got[v][j] + 1);
                got[c][j] = t;
                free = t + 1;
            }
        }
        let total = got.iter().skip(1).flatten().copied().max().unwrap_or(0);
        let first = got.iter().skip(1).map(|p| p[0]).max().unwrap_or(0);
        StepSchedule {
            received: got,
            first,
            total,
        }
    }
}

fn check_order(order: &[u32]) -> Result<()> {
    if order.is_empty() {
        return Err(bad_tree("a multicast needs a source".into()));
    }
    let mut seen = std::collections::HashSet::new();
    for &x in order {
        if !seen.insert(x) {
            return Err(bad_tree(format!("the tree names node {x} twice")));
        }
    }
    Ok(())
}

/// When each vertex receives each packet under the step model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepSchedule {
    /// `received[v][j]`: the step in which vertex `v` receives packet `j`
    /// (0 for the root).
    pub received: Vec<Vec<u32>>,
    /// Steps until every vertex has the first packet (`L1`).
    pub first: u32,
    /// Steps until every vertex has every packet.
    pub total: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    /// Fig. 7: 3 packets to 3 destinations take 6 steps over the binomial
    /// tree and 5 over the linear one.
    #[test]
    fn fig7_binomial_six_steps_linear_five() {
        let b = Tree::binomial(&order(4)).unwrap();
        assert_eq!(b.children(0).len(), 2);
        assert_eq!(b.steps(3, Discipline::Fpfs).total, 6);
        let l = Tree::linear(&order(4)).unwrap();
        assert_eq!(l.max_degree(), 1);
        assert_eq!(l.steps(3, Discipline::Fpfs).total, 5);
    }

    /// Fig. 8: 3 packets to 7 destinations over the binomial tree: 9 steps,
    /// each packet 3 steps after the previous one.
    #[test]
    fn fig8_nine_steps() {
        let b = Tree::binomial(&order(8)).unwrap();
        let s = b.steps(3, Discipline::Fpfs);
        assert_eq!((s.first, s.total), (3, 9));
        for v in 1..8 {
            assert_eq!(s.received[v][1], s.received[v][0] + 3);
            assert_eq!(s.received[v][2], s.received[v][1] + 3);
        }
        // The shape: 0 -> 4, 2, 1; 4 -> 6, 5; 6 -> 7; 2 -> 3.
        let kids = |x: u32| -> Vec<u32> {
            let v = b.vertex_of(x).unwrap();
            b.children(v).iter().map(|&c| b.node(c)).collect()
        };
        assert_eq!(kids(0), [4, 2, 1]);
        assert_eq!(kids(4), [6, 5]);
        assert_eq!(kids(6), [7]);
        assert_eq!(kids(2), [3]);
    }

    #[test]
    fn trees_that_name_a_node_twice_are_refused() {
        let e = Tree::from_children(0, &[(0, vec![1, 2]), (1, vec![2])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad multicast tree: the tree names node 2 twice"
        );
        let e = Tree::kbinomial(&[3, 1, 3], 2).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad multicast tree: the tree names node 3 twice"
        );
        let e = Tree::from_children(0, &[(0, vec![1]), (5, vec![6])]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bad multicast tree: node 5 has children but is not in the tree under root 0"
        );
        let t = Tree::from_children(0, &[(0, vec![1, 40])]).unwrap();
        assert_eq!(
            t.check_nodes(32).unwrap_err().to_string(),
            "node 40 does not exist (the network has nodes 0 to 31)"
        );
    }

    use proptest::prelude::*;

    /// A random tree in which no vertex has more children than its parent
    /// (hence than any ancestor): degrees drawn at or below the parent's.
    fn monotone_tree(seed: u64, n: usize) -> Tree {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand::rngs::Xoshiro256PlusPlus::seed_from_u64(seed);
        let root_deg = rng.random_range(1..=4.min(n - 1).max(1));
        // (node, allowed degree), breadth first.
        let mut queue = std::collections::VecDeque::from([(0u32, root_deg)]);
        let mut next = 1u32;
        let mut kids: Vec<(u32, Vec<u32>)> = Vec::new();
        let mut first = true;
        while let Some((x, cap)) = queue.pop_front() {
            let d = if first {
                cap
            } else {
                rng.random_range(0..=cap)
            };
            first = false;
            let d = d.min(n - next as usize);
            let c: Vec<u32> = (next..next + d as u32).collect();
            next += d as u32;
            for &y in &c {
                queue.push_back((y, d));
            }
            kids.push((x, c));
        }
        Tree::from_children(0, &kids).unwrap()
    }

    proptest! {
        /// Theorem 2 on trees whose root has the most children: FPFS
        /// completes m packets in L1 + (m - 1) delta_r steps, and every
        /// packet j arrives everywhere delta_r steps after packet j - 1.
        #[test]
        fn theorem2_on_random_trees(seed in any::<u64>(), n in 2usize..60, m in 1u32..8) {
            let t = monotone_tree(seed, n);
            prop_assert!(t.degrees_never_grow());
            let d = t.children(0).len() as u32;
            let s = t.steps(m, Discipline::Fpfs);
            prop_assert_eq!(s.total, s.first + (m - 1) * d);
            for v in 1..t.len() {
                for j in 1..m as usize {
                    prop_assert_eq!(s.received[v][j], s.received[v][j - 1] + d);
                }
            }
        }

        /// The construction of Fig. 10 covers the ordering once, reaches
        /// every node in L1 = min { s : N(s, k) >= n } steps, and takes at
        /// most L1 + (m - 1) k steps (exactly that when its root has k
        /// children).
        #[test]
        fn kbinomial_trees_meet_theorem3(n in 2u64..300, kk in 0u32..10, m in 1u32..6) {
            let k = 1 + kk % super::super::log2_ceil(n).max(1);
            let order: Vec<u32> = (0..n as u32).rev().collect();
            let t = Tree::kbinomial(&order, k).unwrap();
            let mut nodes = t.nodes().to_vec();
            nodes.sort_unstable();
            prop_assert_eq!(nodes, (0..n as u32).collect::<Vec<_>>());
            prop_assert!(t.max_degree() <= k as usize);
            let s = t.steps(m, Discipline::Fpfs);
            let l1 = super::super::steps_to_cover(n, k);
            prop_assert_eq!(s.first, l1);
            let bound = l1 + (m - 1) * k;
            prop_assert!(s.total <= bound);
            if t.children(0).len() == k as usize {
                prop_assert_eq!(s.total, bound);
            }
        }
    }
}
