// A second implementation of the SSR / multi-drop decode unit, written
// from the contract in docs/cosim.md ("Unit contracts") alone, in
// SystemVerilog: the header window is cut into bytes, fields are gathered
// big-endian by one function, and the outcome is decided in one
// always_comb as a chain of checks, in the contract's order, that each
// either fails with its code or lets the next run.
module ssr_md_decode #(
    parameter int P = 6,
    parameter int S = 8,
    // Derived sizes (the contract's SWB, IDB, PB, PAIRB, W).
    parameter int SWB   = (S <= 2) ? 1 : $clog2(S),
    parameter int IDB   = (3 + SWB + 7) / 8,
    parameter int PB    = (P + 7) / 8,
    parameter int PAIRB = (SWB + P + 7) / 8,
    parameter int W     = (IDB + PB > 1 + 2 * PAIRB) ? IDB + PB : 1 + 2 * PAIRB
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             hdr_valid,
    input  logic             phase_down,
    input  logic [SWB-1:0]   my_id,
    input  logic [P-1:0]     node_ports,
    input  logic [2*S*P-1:0] route,
    input  logic [8*W-1:0]   hdr,
    output logic             valid,
    output logic [3:0]       err,
    output logic [1:0]       kind,
    output logic [SWB-1:0]   target,
    output logic [P-1:0]     ports_in,
    output logic [P-1:0]     replicate,
    output logic [P-1:0]     choice,
    output logic             strip,
    output logic [7:0]       hdr_first
);
    // Byte i of the window (byte 0 first on the wire).
    logic [7:0] b [W];
    always_comb
        for (int i = 0; i < W; i++) b[i] = hdr[8*(W-1-i) +: 8];

    logic [7:0] first;
    logic [4:0] npairs;
    assign first = hdr[8*W-1 -: 8];
    assign npairs = first[4:0];

    // Bytes start .. start + n - 1 as one big-endian number.
    function automatic logic [127:0] gather(input int start, input int n);
        logic [127:0] v = '0;
        for (int i = 0; i < n; i++) v = (v << 8) | b[start + i];
        return v;
    endfunction

    // The candidate ports toward switch `sw` in this routing phase.
    function automatic logic [P-1:0] toward(input logic [127:0] sw);
        return route[(2 * sw + phase_down) * P +: P];
    endfunction

    logic [3:0]     e;
    logic [1:0]     k;
    logic [SWB-1:0] t;
    logic [P-1:0]   pin, rep, cho;
    logic           st;
    logic [7:0]     hf;
    // (Fields are narrowed by casts, not part-selects: Icarus Verilog 11
    // warns about constant part-selects inside always_comb, and always @*
    // would not see what the functions read.)
    always_comb begin
        logic [127:0] id, ports, pair0, pair1, id1;
        e = 0; k = 0; t = '0; pin = '0; rep = '0; cho = '0; st = 0; hf = first;
        case (3'(first >> 5))
            3'b100: begin                                   // SSR
                k = 1;
                id = gather(0, IDB) & ((128'd1 << (8*IDB - 3)) - 1);
                ports = gather(IDB, PB);
                if ((id >> SWB) != 0) e = 2;
                else if (id >= S) e = 3;
                else if ((ports >> P) != 0) e = 2;
                else begin
                    t = SWB'(id);
                    pin = P'(ports);
                    if (t != my_id) begin
                        cho = toward(id);
                        if (cho == 0) e = 8;
                    end else if (pin == 0) e = 5;
                    else if ((pin & ~node_ports) != 0) e = 6;
                    else rep = pin;
                end
            end
            3'b101: begin                                   // multi-drop
                k = 2;
                pair0 = gather(1, PAIRB);
                pair1 = gather(1 + PAIRB, PAIRB);
                id = pair0 >> P;
                id1 = pair1 >> P;
                if (npairs == 0) e = 4;
                else if (id >= S || (npairs >= 2 && id1 >= S)) e = 3;
                else begin
                    t = SWB'(id);
                    pin = P'(pair0);
                    if (t != my_id) begin
                        cho = toward(id);
                        if (cho == 0) e = 8;
                    end else if (pin == 0) e = 5;
                    else if ((pin & ~node_ports) != 0) e = 6;
                    else begin
                        rep = pin;
                        if (npairs >= 2) begin
                            if (SWB'(id1) == my_id) e = 7;
                            else begin
                                cho = toward(id1);
                                st = 1;
                                hf = {3'b101, npairs - 5'd1};
                                if (cho == 0) e = 8;
                            end
                        end
                    end
                end
            end
            default: e = 1;                                 // unicast, bit-string, unknown
        endcase
    end

    always_ff @(posedge clk) begin
        valid <= rst ? 1'b0 : hdr_valid;
        err <= rst ? 4'd0 : e;
        {kind, target, ports_in, replicate, choice, strip, hdr_first} <= '0;
        if (!rst && e == 0)
            {kind, target, ports_in, replicate, choice, strip, hdr_first} <= {k, t, pin, rep, cho, st, hf};
    end
endmodule
