"""Operations: running the bot for a server over time — scheduled sessions and time zones (`operations`,
`timeparse`), the job scheduler (`scheduler`) and the jobs it runs (`jobs`), online backups and the run lock
(`backup`), resuming interrupted indexing (`recovery`), the host's checks (`doctor`, with the heartbeat file of
`health`), logging (`logs`), command latencies (`metrics`), the `/admin status` summary (`status`) and the LLM
token ledger (`ledger`)."""
