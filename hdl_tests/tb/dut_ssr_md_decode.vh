// The device of every testbench of ssr_md_decode: its sizes from vec.vh
// (`UNIT_*), the registers that drive its inputs, the wires of its outputs
// and the instance `dut`; included inside module tb by tb/tb_ssr_md_decode.v
// (waveform testbench) and dpi/tb_dpi_ssr_md_decode.sv (DPI-C scoreboard).
    localparam P = `UNIT_P;
    localparam S = `UNIT_S;
    localparam SWB   = (S <= 2) ? 1 : $clog2(S);
    localparam IDB   = (3 + SWB + 7) / 8;
    localparam PB    = (P + 7) / 8;
    localparam PAIRB = (SWB + P + 7) / 8;
    localparam W     = (IDB + PB > 1 + 2 * PAIRB) ? IDB + PB : 1 + 2 * PAIRB;
    reg clk = 1'b0;
    reg rst, hdr_valid, phase_down;
    reg [SWB-1:0] my_id;
    reg [P-1:0] node_ports;
    reg [2*S*P-1:0] route;
    reg [8*W-1:0] hdr;
    wire valid, strip;
    wire [3:0] err;
    wire [1:0] kind;
    wire [SWB-1:0] target;
    wire [P-1:0] ports_in, replicate, choice;
    wire [7:0] hdr_first;

    ssr_md_decode #(.P(P), .S(S)) dut (
        .clk(clk), .rst(rst), .hdr_valid(hdr_valid), .phase_down(phase_down), .my_id(my_id),
        .node_ports(node_ports), .route(route), .hdr(hdr), .valid(valid), .err(err),
        .kind(kind), .target(target), .ports_in(ports_in), .replicate(replicate),
        .choice(choice), .strip(strip), .hdr_first(hdr_first)
    );
