module graft.dev/graft

go 1.19
