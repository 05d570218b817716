-- wrk script: SendMessageBatch of 10 entries over AWS Query (a form POST), 256-byte bodies, to the
-- queue in the environment's QUEUE_URL. Used by load-tests/wrk/compare.sh.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
local queue = os.getenv("QUEUE_URL") or "http://127.0.0.1:9500/000000000000/bench"
local body = string.rep("x", tonumber(os.getenv("MESSAGE_SIZE") or "256"))
local form = { "Action=SendMessageBatch&Version=2012-11-05&QueueUrl=" .. queue }
for i = 1, 10 do
  form[#form + 1] = "SendMessageBatchRequestEntry." .. i .. ".Id=m" .. i
  form[#form + 1] = "SendMessageBatchRequestEntry." .. i .. ".MessageBody=" .. body
end
wrk.body = table.concat(form, "&")
