// Package iface holds `shakectl interface`: an instance's network
// interface, named by its UUID (sf-client's interface commands,
// client-python 6c25293c commandline/interface.py). The package is not
// called interface, a Go keyword.
package iface
