// The SSR / multi-drop decode unit (seed 000 section 5.2.3, Fig. 12): twin
// of the model's src/switch/twin/pairs.rs, with the same port names and
// widths. docs/headers.md gives the header layouts.
//
// SSR: the switch id is compared with this switch's; on a match the worm
// is replicated to the node ports of the port string, otherwise it is
// routed toward the named switch (route table rows for destination
// switches). Multi-drop: the first (switch, ports) pair is decoded the same
// way; on a match, if more pairs follow, one copy goes on toward the next
// pair's switch without the first pair.
//
// err: 0 decoded; 1 not an SSR or multi-drop header; 2 reserved bits set;
// 3 a switch id beyond the last switch; 4 no pair; 5 no port named; 6 a
// port that does not lead to a node; 7 one switch in the first two pairs;
// 8 no legal route to the switch. With err set the other outputs but
// valid are 0.
module ssr_md_decode #(
    parameter P = 6,                    // ports
    parameter S = 8                     // switches
) (
    clk, rst, hdr_valid, phase_down, my_id, node_ports, route, hdr,
    valid, err, kind, target, ports_in, replicate, choice, strip, hdr_first
);
    // Field widths (docs/headers.md).
    localparam SWB   = (S <= 2) ? 1 : $clog2(S);   // switch id bits
    localparam IDB   = (3 + SWB + 7) / 8;          // SSR: tag, kind, id bytes
    localparam PB    = (P + 7) / 8;                // SSR: port string bytes
    localparam PAIRB = (SWB + P + 7) / 8;          // multi-drop pair bytes
    localparam W     = (IDB + PB > 1 + 2 * PAIRB) ? IDB + PB : 1 + 2 * PAIRB;

    input  wire              clk;
    input  wire              rst;       // synchronous: every output 0
    input  wire              hdr_valid;
    input  wire              phase_down;
    input  wire [SWB-1:0]    my_id;
    input  wire [P-1:0]      node_ports;
    input  wire [2*S*P-1:0]  route;     // row (2 * switch + phase) in [row*P +: P]
    input  wire [8*W-1:0]    hdr;       // byte 0 in the top bits
    output reg               valid;
    output reg  [3:0]        err;
    output reg  [1:0]        kind;      // 1 SSR, 2 multi-drop
    output reg  [SWB-1:0]    target;
    output reg  [P-1:0]      ports_in;
    output reg  [P-1:0]      replicate;
    output reg  [P-1:0]      choice;
    output reg               strip;
    output reg  [7:0]        hdr_first;

    wire [7:0] first = hdr[8*W-1 -: 8];

    // SSR fields.
    wire [8*IDB-1:0] ssr_idw   = hdr[8*W-1 -: 8*IDB];
    wire [8*IDB-4:0] ssr_id    = ssr_idw[8*IDB-4:0];       // below tag and kind
    wire [8*PB-1:0]  ssr_ports = hdr[8*W-8*IDB-1 -: 8*PB];

    // Multi-drop fields.
    wire [4:0]         npairs = first[4:0];
    wire [8*PAIRB-1:0] pair0  = hdr[8*W-9 -: 8*PAIRB];
    wire [8*PAIRB-1:0] pair1  = hdr[8*W-9-8*PAIRB -: 8*PAIRB];
    wire [8*PAIRB-1:0] id0    = pair0 >> P;
    wire [8*PAIRB-1:0] id1    = pair1 >> P;
    wire [P-1:0]       ports0 = pair0[P-1:0];

    // Candidate ports toward the first pair's (the SSR header's) switch and
    // toward the second pair's, in this phase.
    wire [SWB-1:0] sw0 = first[5] ? id0[SWB-1:0] : ssr_id[SWB-1:0];
    wire [SWB-1:0] sw1 = id1[SWB-1:0];
    wire [P-1:0]   toward0 = route[(2 * sw0 + phase_down) * P +: P];
    wire [P-1:0]   toward1 = route[(2 * sw1 + phase_down) * P +: P];

    // The decision, combinationally.
    reg [3:0]     e;
    reg [1:0]     k;
    reg [SWB-1:0] t;
    reg [P-1:0]   pin, rep, cho;
    reg           st;
    reg [7:0]     hf;
    always @* begin
        e = 4'd0; k = 2'd0; t = {SWB{1'b0}}; pin = {P{1'b0}};
        rep = {P{1'b0}}; cho = {P{1'b0}}; st = 1'b0; hf = first;
        if (!first[7] || first[6]) begin
            e = 4'd1;                               // unicast, bit-string, unknown
        end else if (first[6:5] == 2'b00) begin     // SSR
            k = 2'd1;
            if ((ssr_id >> SWB) != 0)                     e = 4'd2;
            else if (ssr_id >= S)                         e = 4'd3;
            else if (P < 8 * PB && (ssr_ports >> P) != 0) e = 4'd2;
            else begin
                t = ssr_id[SWB-1:0];
                pin = ssr_ports[P-1:0];
                if (t == my_id) begin
                    if (pin == 0)                      e = 4'd5;
                    else if ((pin & ~node_ports) != 0) e = 4'd6;
                    else                               rep = pin;
                end else begin
                    cho = toward0;
                    if (cho == 0) e = 4'd8;
                end
            end
        end else begin                              // multi-drop
            k = 2'd2;
            if (npairs == 0)                         e = 4'd4;
            else if (id0 >= S)                       e = 4'd3;
            else if (npairs >= 2 && id1 >= S)        e = 4'd3;
            else begin
                t = id0[SWB-1:0];
                pin = ports0;
                if (t != my_id) begin
                    cho = toward0;
                    if (cho == 0) e = 4'd8;
                end else if (pin == 0)               e = 4'd5;
                else if ((pin & ~node_ports) != 0)   e = 4'd6;
                else begin
                    rep = pin;
                    if (npairs >= 2) begin
                        if (id1[SWB-1:0] == my_id) e = 4'd7;
                        else begin
                            cho = toward1;
                            if (cho == 0) e = 4'd8;
                            st = 1'b1;
                            hf = {3'b101, npairs - 5'd1};
                        end
                    end
                end
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            valid <= 1'b0; err <= 4'd0; kind <= 2'd0; target <= {SWB{1'b0}};
            ports_in <= {P{1'b0}}; replicate <= {P{1'b0}}; choice <= {P{1'b0}};
            strip <= 1'b0; hdr_first <= 8'd0;
        end else begin
            valid <= hdr_valid;
            err <= e;
            if (e != 0) begin
                kind <= 2'd0; target <= {SWB{1'b0}}; ports_in <= {P{1'b0}};
                replicate <= {P{1'b0}}; choice <= {P{1'b0}}; strip <= 1'b0; hdr_first <= 8'd0;
            end else begin
                kind <= k; target <= t; ports_in <= pin; replicate <= rep;
                choice <= cho; strip <= st; hdr_first <= hf;
            end
        end
    end
endmodule
