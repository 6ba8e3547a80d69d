package torch
import ("testing";"fmt")
func TestQuickMove(t *testing.T) {
	x := Arange(6).Reshape(2,3).ToDType(Float32)
	fmt.Println(Cat([]*Tensor{x, x.MulScalar(10)}, 1), Stack([]*Tensor{x, x}, 0).Shape(), x.Flip(0,1), x.Roll([]int{1}, 1), x.Roll([]int{1}), x.Repeat(2,1), x.Tile(2), x.RepeatInterleave(2, 0))
	fmt.Println(x.Tril(0), x.Triu(1), Arange(3).Diag(1), x.Diag(0), x.Gather(1, FromSlice([]int64{2,0,1,1}, WithShape(2,2))))
	fmt.Println(Zeros([]int{2,3}).ScatterAdd(1, FromSlice([]int64{0,0,1,2}, WithShape(2,2)), Ones([]int{2,2})), x.IndexSelect(1, FromSlice([]int64{2,0})), x.MaskedSelect(x.GtScalar(2)), x.Nonzero())
	fmt.Println(x.Index(FromSlice([]int64{-1,0})), x.Index(FromSlice([]bool{false,true})))
	v, i := FromSlice([]float32{3,1,2,float32(0)/1}).Sort(0, true); fmt.Println(v, i)
	v, i = x.Topk(2, 1, true); fmt.Println(v, i)
	a, b, c := FromSlice([]int64{3,1,3,2,1}).Unique(); fmt.Println(a, b, c)
	fmt.Println(Searchsorted(FromSlice([]float32{1,3,5,7}), FromSlice([]float32{3,6,9}), false), OneHot(FromSlice([]int64{0,2}), -1), Embedding(FromSlice([]int64{1,0,1}, WithShape(3)), x))
	fmt.Println(Embedding(FromSlice([]int64{7}), x).Err(), x.Nonzero().Err(), Zeros([]int{2}, WithDevice("meta")).Nonzero().Err())
}
