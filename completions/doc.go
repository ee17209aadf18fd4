// Package completions holds shakectl's shell completion scripts, generated
// from the command tree and committed so that packagers and people without
// a shakectl binary at hand can use them:
//
//	shakectl.bash  bash (bash-completion v2), with descriptions
//	_shakectl      zsh
//	shakectl.fish  fish
//	shakectl.ps1   PowerShell
//
// Regenerate them with
//
//	go generate ./...
//
// A test fails when they no longer match what `shakectl completion SHELL`
// prints.
package completions

//go:generate go run github.com/shakenfist/shakectl/cmd/gendocs -completions .
