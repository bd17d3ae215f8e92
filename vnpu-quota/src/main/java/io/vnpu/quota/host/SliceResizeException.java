package io.vnpu.quota.host;

/**
 * A live resize was refused: the slice may not be resized (a scheduler charged for its sizes, its
 * owner is gone, it does not exist) or the change does not fit it. The message is one line naming
 * the slice, the field and the value; nothing was changed.
 */
public final class SliceResizeException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  public SliceResizeException(String message) {
    super(message);
  }
}
