-- Spool replay: the encryption setting of the queues a replay batch writes to (docs/semantics.md, "Where payloads are
-- decrypted"). Not locked: a configure that commits between this read and the insert is indistinguishable from one made
-- just after the replay, since enabling or disabling encryption never rewrites stored messages. Queues that do not
-- exist yet have no row (the push creates them in clear). $1 tenant, $2 queue names.
SELECT name, encryption_enabled FROM queen.queues WHERE tenant = $1 AND name = ANY($2::text[])
