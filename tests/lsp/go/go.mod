module example.com/lspfixture

go 1.22
