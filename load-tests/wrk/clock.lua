-- A monotonic clock in microseconds for the wrk scripts (LuaJIT's FFI: clock_gettime(CLOCK_MONOTONIC),
-- which every process on the machine shares, so a time taken in one wrk can be compared in another).
-- Usage: local now_us = dofile(here .. "/clock.lua")
local ffi = require("ffi")
ffi.cdef [[
  typedef struct { long tv_sec; long tv_nsec; } sluice_timespec;
  int clock_gettime(int clock, sluice_timespec *ts);
]]
local ts = ffi.new("sluice_timespec")
return function()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
end
