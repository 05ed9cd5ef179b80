package main

func burst() int { return 1 }
