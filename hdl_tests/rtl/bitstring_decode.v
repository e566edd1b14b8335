// The bit-string decode unit (seed 000 section 5.3.3): twin of the model's
// src/switch/twin/bitstring.rs, with the same port names and widths.
//
// A header with its up-down bit set whose destinations the switch does not
// all reach by down links goes up, unchanged, by one of the up ports.
// Otherwise the up-down bit is cleared and the worm is replicated to every
// port whose restricted reachability string meets the header; each copy's
// header is the header ANDed with that port's string. Every output is
// registered at every rising edge from the inputs sampled there.
//
// err: 0 decoded, 1 no destination, 2 a destination the switch cannot
// reach going down (with the up-down bit clear, or no up port).
module bitstring_decode #(
    parameter N = 16,                   // nodes
    parameter P = 6                     // ports
) (
    input  wire             clk,
    input  wire             rst,        // synchronous: every output 0
    input  wire             hdr_valid,
    input  wire             ud_in,
    input  wire [N-1:0]     dests,
    input  wire [N-1:0]     total,
    input  wire [P*N-1:0]   restricted, // port q's string in [q*N +: N]
    input  wire [P-1:0]     up_ports,
    output reg              valid,
    output reg  [1:0]       err,
    output reg              ud_out,
    output reg  [P-1:0]     replicate,
    output reg  [P-1:0]     choice,
    output reg  [P*N-1:0]   hdr_out     // port q's header in [q*N +: N]
);
    wire none     = (dests == {N{1'b0}});
    wire covered  = ((dests & ~total) == {N{1'b0}});
    wire go_up    = !covered && ud_in && (up_ports != {P{1'b0}});

    reg [P*N-1:0] branch;
    reg [P-1:0]   hit;
    integer q;
    always @* begin
        for (q = 0; q < P; q = q + 1) begin
            branch[q*N +: N] = dests & restricted[q*N +: N];
            hit[q] = |(dests & restricted[q*N +: N]);
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            valid <= 1'b0;
            err <= 2'd0;
            ud_out <= 1'b0;
            replicate <= {P{1'b0}};
            choice <= {P{1'b0}};
            hdr_out <= {P*N{1'b0}};
        end else begin
            valid <= hdr_valid;
            err <= 2'd0;
            ud_out <= 1'b0;
            replicate <= {P{1'b0}};
            choice <= {P{1'b0}};
            hdr_out <= {P*N{1'b0}};
            if (none) begin
                err <= 2'd1;
            end else if (go_up) begin
                ud_out <= 1'b1;
                choice <= up_ports;
            end else if (!covered) begin
                err <= 2'd2;
            end else begin
                replicate <= hit;
                hdr_out <= branch;
            end
        end
    end
endmodule
