// A second implementation of the replication input buffer, written from the
// contract in docs/cosim.md ("Unit contracts") alone, in SystemVerilog and
// structured differently from the twin in hdl_tests/rtl/: a chunk is
// tagged with its packet and its position in the packet (no linked list),
// a reader holds only the number of flits it has read and finds its chunk
// by searching the tags, a chunk keeps the mask of readers that still need
// it (no count), and the free-chunk, flit and packet counts are recounted
// from the tables at every edge rather than kept as counters.
module repl_buffer #(
    parameter int C = 16,
    parameter int K = 4,
    parameter int P = 3,
    // Widths of the count outputs (the contract's bits(C) and bits(C*K)).
    parameter int FB = $clog2(C + 1),
    parameter int NB = $clog2(C * K + 1)
) (
    input  logic            clk,
    input  logic            rst,
    input  logic            wr_valid,
    input  logic [7:0]      wr_data,
    input  logic            wr_tail,
    input  logic            fan_valid,
    input  logic [P-1:0]    fan_mask,
    input  logic [P-1:0]    rd_en,
    output logic            wr_ok,
    output logic            fan_ok,
    output logic [P-1:0]    rd_valid,
    output logic [8*P-1:0]  rd_data,
    output logic [P-1:0]    rd_tail,
    output logic [P-1:0]    busy,
    output logic [FB-1:0]   free_chunks,
    output logic [NB-1:0]   buf_count,
    output logic [FB-1:0]   packets,
    output logic [15:0]     chunks_freed
);
    // Chunks: in use, owning packet slot, position in the packet, flits
    // written into it, readers that still need it, and the flits.
    logic         c_used [C];
    int           c_pkt  [C];
    int           c_seq  [C];
    int           c_fill [C];
    logic [P-1:0] c_need [C];
    logic [8:0]   mem    [C*K];
    // Packet slots: in use, flits written, readers given, readers done.
    logic         p_used [C];
    int           p_len  [C];
    logic [P-1:0] p_fan  [C];
    logic [P-1:0] p_done [C];
    logic         p_waiting [C];
    // Packets waiting for readers, oldest first (a shift queue).
    int           queue [C];
    int           queued;
    // The packet being written.
    logic         open;
    int           cur;
    // Readers: active, packet slot, flits read.
    logic         r_on  [P];
    int           r_pkt [P];
    int           r_pos [P];
    logic [15:0]  freed;

    // The chunk of packet `pk` at position `seq`, or -1.
    function automatic int find(input int pk, input int seq);
        int hit = -1;
        for (int c = 0; c < C; c++)
            if (c_used[c] && c_pkt[c] == pk && c_seq[c] == seq) hit = c;
        return hit;
    endfunction

    // The lowest chunk not in use, or -1.
    function automatic int free_chunk();
        int hit = -1;
        for (int c = C - 1; c >= 0; c--) if (!c_used[c]) hit = c;
        return hit;
    endfunction

    // Reader `p` no longer needs chunk `c`; it is free when no reader does.
    task automatic let_go(input int c, input int p);
        c_need[c][p] = 1'b0;
        if (c_need[c] == '0) begin
            c_used[c] = 1'b0;
            freed = freed + 16'd1;
        end
    endtask

    always_ff @(posedge clk) begin
        int c, pk, slot, last;
        logic [8:0] f;
        rd_valid <= '0; rd_data <= '0; rd_tail <= '0; wr_ok <= 1'b0; fan_ok <= 1'b0;
        if (rst) begin
            for (int i = 0; i < C; i++) begin
                c_used[i] = 1'b0;
                p_used[i] = 1'b0;
                p_waiting[i] = 1'b0;
            end
            for (int p = 0; p < P; p++) r_on[p] = 1'b0;
            queued = 0; open = 1'b0; cur = 0; freed = '0;
            busy <= '0; free_chunks <= '0; buf_count <= '0; packets <= '0; chunks_freed <= '0;
        end else begin
            // Reads, reader 0 first.
            for (int p = 0; p < P; p++) begin
                if (rd_en[p] && r_on[p] && r_pos[p] < p_len[r_pkt[p]]) begin
                    pk = r_pkt[p];
                    // Reading the first flit of a chunk lets go of the last.
                    if (r_pos[p] > 0 && r_pos[p] % K == 0) let_go(find(pk, r_pos[p] / K - 1), p);
                    c = find(pk, r_pos[p] / K);
                    f = mem[c * K + r_pos[p] % K];
                    r_pos[p] = r_pos[p] + 1;
                    rd_valid[p] <= 1'b1;
                    rd_data[8*p +: 8] <= f[7:0];
                    if (f[8]) begin
                        rd_tail[p] <= 1'b1;
                        let_go(c, p);
                        p_done[pk][p] = 1'b1;
                        if (p_done[pk] == p_fan[pk]) p_used[pk] = 1'b0;
                        r_on[p] = 1'b0;
                    end
                end
            end
            // Fanout to the oldest waiting packet, if every reader asked is idle.
            if (fan_valid && queued > 0 && fan_mask != '0) begin
                logic idle;
                idle = 1'b1;
                for (int p = 0; p < P; p++) if (fan_mask[p] && r_on[p]) idle = 1'b0;
                if (idle) begin
                    pk = queue[0];
                    for (int i = 1; i < C; i++) queue[i - 1] = queue[i];
                    queued = queued - 1;
                    p_waiting[pk] = 1'b0;
                    p_fan[pk] = fan_mask;
                    for (int i = 0; i < C; i++) if (c_used[i] && c_pkt[i] == pk) c_need[i] = fan_mask;
                    for (int p = 0; p < P; p++)
                        if (fan_mask[p]) begin
                            r_on[p] = 1'b1;
                            r_pkt[p] = pk;
                            r_pos[p] = 0;
                        end
                    fan_ok <= 1'b1;
                end
            end
            // Write.
            if (wr_valid) begin
                c = free_chunk();
                if (!open) begin
                    if (c >= 0) begin
                        slot = -1;
                        for (int i = C - 1; i >= 0; i--) if (!p_used[i]) slot = i;
                        p_used[slot] = 1'b1; p_len[slot] = 1; p_fan[slot] = '0; p_done[slot] = '0;
                        p_waiting[slot] = 1'b1;
                        queue[queued] = slot;
                        queued = queued + 1;
                        c_used[c] = 1'b1; c_pkt[c] = slot; c_seq[c] = 0; c_fill[c] = 1; c_need[c] = '0;
                        mem[c * K] = {wr_tail, wr_data};
                        open = !wr_tail;
                        cur = slot;
                        wr_ok <= 1'b1;
                    end
                end else begin
                    pk = cur;
                    if (p_len[pk] % K == 0) begin
                        // The packet's last chunk is full: a new one.
                        if (c >= 0) begin
                            c_used[c] = 1'b1; c_pkt[c] = pk; c_seq[c] = p_len[pk] / K; c_fill[c] = 0;
                            c_need[c] = p_fan[pk];
                            last = c;
                        end else last = -1;
                    end else last = find(pk, p_len[pk] / K);
                    if (last >= 0) begin
                        mem[last * K + p_len[pk] % K] = {wr_tail, wr_data};
                        c_fill[last] = c_fill[last] + 1;
                        p_len[pk] = p_len[pk] + 1;
                        if (wr_tail) open = 1'b0;
                        wr_ok <= 1'b1;
                    end
                end
            end
            // The registered views, recounted from the tables.
            begin
                int nfree, nflits, npkts;
                nfree = 0; nflits = 0; npkts = 0;
                for (int i = 0; i < C; i++) begin
                    if (!c_used[i]) nfree = nfree + 1;
                    else nflits = nflits + c_fill[i];
                    if (p_used[i]) npkts = npkts + 1;
                end
                for (int p = 0; p < P; p++) busy[p] <= r_on[p];
                free_chunks <= FB'(nfree);
                buf_count <= NB'(nflits);
                packets <= FB'(npkts);
                chunks_freed <= freed;
            end
        end
    end
endmodule
