/** The parts of HAMi's device and node configs the plugin uses, and VDeviceCount. */
package io.vnpu.kube.hami.config;
