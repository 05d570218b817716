-- wrk script: stores FILL_MESSAGES (default 100000) messages of MESSAGE_SIZE (256) bytes in the queue
-- in QUEUE_URL with SendMessageBatch of 10 over AWS Query, then stops (a few batches more may land:
-- those in flight when the count is reached) and creates the file named by STOP_FILE (if set), on
-- which compare.sh interrupts wrk (wrk itself waits out -d). Prepares recvdel.lua's queue in load-tests/wrk/compare.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local body = string.rep("x", tonumber(os.getenv("MESSAGE_SIZE") or "256"))
local target = tonumber(os.getenv("FILL_MESSAGES") or "100000")
local stop_file = os.getenv("STOP_FILE")
local form = { "Action=SendMessageBatch&Version=2012-11-05&QueueUrl=" .. queue }
for i = 1, 10 do
  form[#form + 1] = "SendMessageBatchRequestEntry." .. i .. ".Id=m" .. i
  form[#form + 1] = "SendMessageBatchRequestEntry." .. i .. ".MessageBody=" .. body
end
wrk.body = table.concat(form, "&")

stored = 0
function response(status, headers, body)
  if status == 200 then stored = stored + 10 end
  if stored >= target and stored - 10 < target then
    wrk.thread:stop()
    if stop_file then io.open(stop_file, "w"):close() end
  end
end
