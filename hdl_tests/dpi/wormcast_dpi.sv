// wormcast's C ABI (capi/include/wormcast.h) imported into SystemVerilog
// through DPI-C: the units with Verilog twins stepped one rising edge per
// call by their port names, and networks of any router model fed messages
// and clocked one cycle at a time. Link the simulation with
// target/release/libwormcast_capi.a (Verilator: -LDFLAGS
// "<path>/libwormcast_capi.a -lpthread -ldl -lm").
//
// A port of at most 64 bits travels as a longint unsigned
// (wc_unit_set64, wc_unit_get64); a wider one as wc_vec_t, a WC_MAXW-bit
// vector (the C side sees its 32-bit words, least significant first),
// with WC_WORDS as the word count. WC_MAXW is 1024 unless the macro
// WC_MAXW is defined (+define+WC_MAXW=4096 for wider ports,
// +define+WC_MAXW=128 for less to copy per call); a port wider than
// WC_MAXW bits is refused with an error that says so. Every
// function returns WC_OK or a negative WC_E* code, or a null chandle, and
// wc_last_error() says what went wrong; nothing stops the simulation.
`ifndef WC_MAXW
`define WC_MAXW 1024
`endif
package wormcast_dpi;
    parameter int WC_MAXW = `WC_MAXW;
    parameter int WC_WORDS = WC_MAXW / 32;
    typedef bit [WC_MAXW-1:0] wc_vec_t;

    localparam int WC_OK = 0;
    localparam int WC_EINVAL = -1;
    localparam int WC_EDEADLOCK = -2;
    localparam int WC_ENOTDRAINED = -3;
    localparam int WC_EFAULT = -4;
    localparam int WC_EIO = -5;
    localparam int WC_EPANIC = -6;

    import "DPI-C" function string wc_last_error();

    // Units: name is "bitstring-decode" (nodes, ports), "ssr-md-decode"
    // (ports, switches) or "repl-buffer" (chunks, chunk_flits, ports).
    import "DPI-C" function chandle wc_unit_new(input string name, input int unsigned nodes,
        input int unsigned ports, input int unsigned switches, input int unsigned chunks,
        input int unsigned chunk_flits);
    import "DPI-C" function void wc_unit_free(input chandle u);
    import "DPI-C" function int wc_unit_set(input chandle u, input string port,
        input wc_vec_t value, input int unsigned nwords);
    import "DPI-C" function int wc_unit_set64(input chandle u, input string port,
        input longint unsigned value);
    import "DPI-C" function int wc_unit_step(input chandle u);
    import "DPI-C" function int wc_unit_get(input chandle u, input string port,
        output wc_vec_t value, input int unsigned nwords);
    import "DPI-C" function int wc_unit_get64(input chandle u, input string port,
        output longint unsigned value);
    import "DPI-C" function int wc_unit_width(input chandle u, input string port);
    import "DPI-C" function longint unsigned wc_unit_cycle(input chandle u);

    // Networks: topology "mesh:8x8", "torus:8x8x8", "hypercube:6",
    // "irregular:switches=8,ports=8,nodes=32,seed=1" or a topology file;
    // router, routing and scheme "" for the defaults.
    import "DPI-C" function chandle wc_net_new(input string topology, input string router,
        input string routing, input string scheme, input longint unsigned seed);
    import "DPI-C" function chandle wc_net_from_config(input string path);
    import "DPI-C" function void wc_net_free(input chandle n);
    import "DPI-C" function int wc_net_trace(input chandle n, input string path,
        input longint unsigned from_cycle, input longint unsigned to_cycle);
    import "DPI-C" function int wc_net_close(input chandle n);
    // After wc_net_close: "" or which view it left as it was (a user's .gtkw).
    import "DPI-C" function string wc_net_note(input chandle n);
    import "DPI-C" function int unsigned wc_net_nodes(input chandle n);
    import "DPI-C" function longint unsigned wc_net_cycle(input chandle n);
    import "DPI-C" function longint unsigned wc_net_in_flight(input chandle n);
    // Destinations as a bit string: node i is bit i. Returns the message's
    // id, or a negative error code.
    import "DPI-C" function longint wc_net_send_mask(input chandle n, input int unsigned src,
        input wc_vec_t dests, input int unsigned nwords, input int unsigned flits);
    import "DPI-C" function int wc_net_step(input chandle n, input longint unsigned cycles);
    import "DPI-C" function longint wc_net_drain(input chandle n,
        input longint unsigned max_cycles);
    // 1 with the oldest delivery not yet taken, 0 when there is none.
    import "DPI-C" function int wc_net_next_delivery_fields(input chandle n,
        output longint unsigned msg, output int unsigned node, output longint unsigned cycle);
endpackage
