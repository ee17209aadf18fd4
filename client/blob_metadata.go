package client

import (
	"context"
	"net/url"
	"strings"
)

// CapabilityBlobMetadata is what sf-client checks before its blob
// metadata commands (client-python 6c25293c commandline/blob.py).
const CapabilityBlobMetadata = "blob-metadata"

func blobPath(blobUUID string) (string, error) {
	if strings.TrimSpace(blobUUID) == "" {
		return "", &UsageError{Field: "blob", Problem: "empty blob uuid"}
	}
	return "/blobs/" + url.PathEscape(blobUUID), nil
}

// SetBlobMetadata sends PUT /blobs/{uuid}/metadata/{key} {"value"}
// (shakenfist da448b1a blob.py BlobMetadataEndpoint.put: 404 for an
// unknown blob, 400 for an empty value). Its swagger says admin only, but
// no decorator enforces that at da448b1a, so any namespace may. (sf-client
// 6c25293c's `blob set-metadata` sends the instance route by mistake.)
func (c *Client) SetBlobMetadata(ctx context.Context, blobUUID, key string, value any) error {
	p, err := blobPath(blobUUID)
	if err != nil {
		return err
	}
	if err := c.require(ctx, CapabilityBlobMetadata, "blob metadata"); err != nil {
		return err
	}
	return c.setMetadata(ctx, p, key, value)
}

// DeleteBlobMetadata sends DELETE /blobs/{uuid}/metadata/{key}
// (BlobMetadataEndpoint.delete); a key the blob lacks is no error.
func (c *Client) DeleteBlobMetadata(ctx context.Context, blobUUID, key string) error {
	p, err := blobPath(blobUUID)
	if err != nil {
		return err
	}
	if err := c.require(ctx, CapabilityBlobMetadata, "blob metadata"); err != nil {
		return err
	}
	return c.deleteMetadata(ctx, p, key)
}
