/**
 * Opening files a tenant can reach without ever blocking on them ({@code O_NONBLOCK|O_NOFOLLOW},
 * type and size checked): a lease, FIFO, symlink or huge file is an error for that slice only.
 */
package io.vnpu.quota.files;
