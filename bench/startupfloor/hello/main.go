// Command hello does nothing: the start-up floor of a Go program here.
package main

func main() {}
