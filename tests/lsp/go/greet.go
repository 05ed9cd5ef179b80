package main

func greet(name string) string {
	return "hello " + name
}
