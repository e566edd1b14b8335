// A second implementation of the bit-string decode unit, written from the
// contract in docs/cosim.md ("Unit contracts") alone, in SystemVerilog:
// the decision is one function evaluated per port in a for-int loop, the
// outcome a priority of three conditions, the registers one always_ff.
// It passes `wormcast cosim --unit bitstring-decode` like the twin in
// hdl_tests/rtl/ (hdl_tests/run.sh runs both under Icarus Verilog -g2012
// and Verilator).
module bitstring_decode #(
    parameter int N = 16,
    parameter int P = 6
) (
    input  logic             clk,
    input  logic             rst,
    input  logic             hdr_valid,
    input  logic             ud_in,
    input  logic [N-1:0]     dests,
    input  logic [N-1:0]     total,
    input  logic [P*N-1:0]   restricted,
    input  logic [P-1:0]     up_ports,
    output logic             valid,
    output logic [1:0]       err,
    output logic             ud_out,
    output logic [P-1:0]     replicate,
    output logic [P-1:0]     choice,
    output logic [P*N-1:0]   hdr_out
);
    // Port q's share of the destinations.
    function automatic logic [N-1:0] share(input int q);
        return dests & restricted[q*N +: N];
    endfunction

    logic [P*N-1:0] shares;
    logic [P-1:0]   meets;
    always_comb begin
        for (int q = 0; q < P; q++) begin
            shares[q*N +: N] = share(q);
            meets[q] = share(q) != '0;
        end
    end

    // Outcomes, in order of precedence.
    logic empty, outside, climbs;
    assign empty   = dests == '0;
    assign outside = (dests & ~total) != '0;
    assign climbs  = outside && ud_in && up_ports != '0;

    always_ff @(posedge clk) begin
        valid     <= rst ? 1'b0 : hdr_valid;
        err       <= 2'd0;
        ud_out    <= 1'b0;
        replicate <= '0;
        choice    <= '0;
        hdr_out   <= '0;
        if (!rst) begin
            if (empty) err <= 2'd1;
            else if (climbs) begin
                ud_out <= 1'b1;
                choice <= up_ports;
            end else if (outside) err <= 2'd2;
            else begin
                replicate <= meets;
                hdr_out   <= shares;
            end
        end
    end
endmodule
