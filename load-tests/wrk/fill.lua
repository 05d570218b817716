-- wrk script: stores FILL_MESSAGES (default 100000) messages with batch.lua's SendMessageBatch of 10
-- (AWS Query, MESSAGE_SIZE bytes each) in the queue in QUEUE_URL, then stops (a few batches more may
-- land: those in flight when the count is reached) and creates the file named by STOP_FILE (if set),
-- on which compare.sh interrupts wrk (wrk itself waits out -d). Prepares recvdel.lua's queue in
-- load-tests/wrk/compare.sh.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
dofile(here .. "/batch.lua")
local target = tonumber(os.getenv("FILL_MESSAGES") or "100000")
local stop_file = os.getenv("STOP_FILE")

stored = 0
function response(status, headers, body)
  if status == 200 then stored = stored + 10 end
  if stored >= target and stored - 10 < target then
    wrk.thread:stop()
    if stop_file then io.open(stop_file, "w"):close() end
  end
end
