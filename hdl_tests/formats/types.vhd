-- A small VHDL design with what VHDL simulators write unusual waveforms
-- for: std_logic values beyond 0/1/x/z (U, X, W, L, H, -), a vector
-- declared ascending, an enumeration (written as a string by GHDL's FST
-- writer), a string signal, an integer and a boolean. tests/real_tools.rs
-- simulates it under GHDL and reads its VCD, FST and GHW dumps.
library ieee;
use ieee.std_logic_1164.all;

entity types is
end entity;

architecture sim of types is
  type state_t is (idle, busy, done);
  signal clk : std_logic := '0';
  signal bus_v : std_logic_vector(3 downto 0) := "UUUU";
  signal asc : std_logic_vector(0 to 3) := "0011";
  signal st : state_t := idle;
  signal msg : string(1 to 4) := "IDLE";
  signal n : integer range 0 to 255 := 0;
  signal flag : boolean := false;
  signal weak : std_logic := 'Z';
begin
  process
  begin
    for i in 0 to 5 loop
      wait for 5 ns;
      clk <= not clk;
    end loop;
    wait;
  end process;

  process (clk)
  begin
    if rising_edge(clk) then
      n <= n + 1;
      if n = 0 then
        bus_v <= "1X0W"; st <= busy; msg <= "BUSY"; flag <= true; weak <= 'H';
      elsif n = 1 then
        bus_v <= "LH-Z"; st <= done; msg <= "DONE"; weak <= 'L';
      end if;
    end if;
  end process;
end architecture;
