module goutline

go 1.19
