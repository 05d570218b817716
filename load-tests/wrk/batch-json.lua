-- wrk script: SendMessageBatch of 10 entries over AWS JSON 1.0 (X-Amz-Target), 256-byte bodies,
-- to the queue in the environment's QUEUE_URL. Used by load-tests/wrk/compare.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-amz-json-1.0"
wrk.headers["X-Amz-Target"] = "AmazonSQS.SendMessageBatch"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local body = string.rep("x", tonumber(os.getenv("MESSAGE_SIZE") or "256"))
local entries = {}
for i = 1, 10 do
  entries[#entries + 1] = '{"Id":"m' .. i .. '","MessageBody":"' .. body .. '"}'
end
wrk.body = '{"QueueUrl":"' .. queue .. '","Entries":[' .. table.concat(entries, ",") .. ']}'
