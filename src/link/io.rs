//! The endpoint interface: how a node (a traffic endpoint or a host with
//! its network interface) is wired to its switch port and what it touches
//! in a cycle (seed 000 sections 3 and 6.2).

use super::PacketView;
use crate::header::{Formats, Header};
use crate::rtl::trace::{Radix, Sampler, ScopeBuilder};
use crate::rtl::{ChannelId, bits_for};
use crate::switch::{Channels, CreditCounter, LinkIo};

/// How an endpoint is wired and configured.
#[derive(Clone, Copy, Debug)]
pub struct EndpointWiring {
    /// Link to the switch.
    pub tx: ChannelId,
    /// The switch input buffer's credit counter.
    pub credit_in: ChannelId,
    /// Link from the switch.
    pub rx: ChannelId,
    /// This endpoint's credit counter, read by the switch's output port.
    pub credit_out: ChannelId,
    /// Chunks of the switch input buffer it sends into.
    pub switch_chunks: u16,
    /// The switch and port the node is attached to.
    pub at: (u32, u32),
}

impl EndpointWiring {
    /// Declares the signals of the node's side of its link, shared by every
    /// kind of node: `credits` (free chunks of the switch's buffer, as the
    /// node sees them), then `valid`, `data`, `head`, `tail` of the link.
    pub(crate) fn declare_link(&self, s: &mut ScopeBuilder<'_>) {
        s.signal("credits", bits_for(self.switch_chunks));
        s.signal("valid", 1);
        s.signal_as("data", 8, Radix::Hex);
        s.signal("head", 1);
        s.signal("tail", 1);
    }

    /// Samples what [`EndpointWiring::declare_link`] declared.
    pub(crate) fn sample_link(&self, credit: &CreditCounter, ch: &Channels, s: &mut Sampler<'_>) {
        let mut r = s.run::<5>();
        for v in self.link_values(credit, ch) {
            r.value(v);
        }
        r.finish();
    }

    /// The values of what [`EndpointWiring::declare_link`] declared, in
    /// its order, for a component that writes them in a run of its own.
    #[inline(always)]
    pub(crate) fn link_values(&self, credit: &CreditCounter, ch: &Channels) -> [u64; 5] {
        let f = ch.flits.q(self.tx);
        [
            credit.available(ch.credits.q(self.credit_in)) as u64,
            f.is_valid() as u64,
            f.data as u64,
            f.is_head() as u64,
            f.is_tail() as u64,
        ]
    }
}

/// What an endpoint touches in a cycle. `G` is what a network interface
/// knows of its multicast groups (the NI layer's group type; a traffic
/// endpoint ignores it).
pub struct EndpointIo<'a, G> {
    /// Links and credits.
    pub link: LinkIo<'a>,
    /// Packets in flight: what the cycle may read and start of them
    /// (the copies it delivers whole are released after the cycle).
    pub packets: PacketView<'a>,
    /// First cycle of the measurement window.
    pub window: u64,
    /// The multicast groups (their trees are in every member NI's memory),
    /// by the slot their packets name.
    pub groups: &'a [G],
    /// The messages hosts received whole this cycle: (node, group slot, or
    /// `u16::MAX` for a message outside any group). A traffic endpoint has
    /// no host and logs nothing.
    pub hosts: &'a mut Vec<(u32, u16)>,
    /// The traffic endpoints that recorded a delivery since the system
    /// last took them (a node is added with its first one), so that taking
    /// them visits those endpoints alone.
    pub delivered: &'a mut Vec<u32>,
}

/// Checks a whole header received by node `node` on port `at.1` of switch
/// `at.0`: it must name this node alone, as the last switch leaves it.
#[inline]
pub(crate) fn check_header(
    formats: &Formats,
    hdr: &[u8],
    node: u32,
    at: (u32, u32),
) -> Result<(), String> {
    // A unicast header that names this node, the common case, passes
    // here, inlined where a node receives; a multicast copy's check is a
    // call.
    if formats.unicast().names(hdr, node) {
        return Ok(());
    }
    check_copy_header(formats, hdr, node, at)
}

/// [`check_header`] past a unicast header: a bit-string copy that names
/// this node alone and an SSR or multi-drop copy that names its port pass
/// without decoding the header; anything else takes the whole check,
/// which gives the same verdict for them.
#[inline(never)]
fn check_copy_header(
    formats: &Formats,
    hdr: &[u8],
    node: u32,
    at: (u32, u32),
) -> Result<(), String> {
    if formats.bitstring_names(hdr, node) || formats.port_names(hdr, at.0, at.1) {
        return Ok(());
    }
    check_whole_header(formats, hdr, node, at)
}

/// [`check_header`] for any header: decodes it and checks what it names.
fn check_whole_header(
    formats: &Formats,
    hdr: &[u8],
    node: u32,
    (sw, port): (u32, u32),
) -> Result<(), String> {
    let h = formats.decode(hdr).map_err(|e| e.to_string())?;
    let ok = match &h {
        Header::Unicast { dest } => *dest == node,
        Header::Ssr { switch, ports } => *switch == sw && ports.contains(port as usize),
        Header::MultiDrop { pairs } => pairs[0].0 == sw && pairs[0].1.contains(port as usize),
        Header::BitString { up, dests } => {
            !*up && dests.count_ones() == 1 && dests.get(node as usize)
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("its header {h:?} does not name this node alone"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::header::Header;
    use crate::rtl::{BitString, PortMask};

    /// 32 nodes on 8 switches of 8 ports; the receiver is node 5, on
    /// port 2 of switch 1.
    fn check(h: &Header) -> Result<(), String> {
        let f = Formats::new(32, 8, 8);
        let mut bytes = Vec::new();
        f.encode(h, &mut bytes).unwrap();
        check_header(&f, &bytes, 5, (1, 2))
    }

    #[test]
    fn a_header_passes_only_when_it_names_the_receiver_alone() {
        assert_eq!(check(&Header::Unicast { dest: 5 }), Ok(()));
        assert_eq!(
            check(&Header::Unicast { dest: 6 }),
            Err("its header Unicast { dest: 6 } does not name this node alone".into())
        );
        let one = |up: bool, nodes: &[usize]| {
            let mut dests = BitString::zeros(32);
            for &n in nodes {
                dests.set(n, true);
            }
            Header::BitString { up, dests }
        };
        assert_eq!(check(&one(false, &[5])), Ok(()));
        assert!(check(&one(true, &[5])).is_err(), "still going up");
        assert!(check(&one(false, &[5, 6])).is_err(), "a second node");
        let ports = PortMask(1 << 2);
        assert_eq!(check(&Header::Ssr { switch: 1, ports }), Ok(()));
        assert!(check(&Header::Ssr { switch: 2, ports }).is_err());
        // A unicast word naming no node is refused, not passed.
        let f = Formats::new(32, 8, 8);
        let err = check_header(&f, &[0x7f], 5, (1, 2)).unwrap_err();
        assert!(err.contains("reserved") || err.contains("node"), "{err}");
    }
}
