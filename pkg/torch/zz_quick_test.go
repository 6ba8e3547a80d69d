package torch
import ("testing";"fmt")
func TestQuickMM(t *testing.T) {
	a := Arange(6).Reshape(2,3).ToDType(Float32)
	b := Arange(12).Reshape(3,4).ToDType(Float32)
	fmt.Println(a.Mm(b), a.T().T().Mm(b), b.T().Mm(a.T()), Arange(6).Reshape(2,3).Mm(Arange(12).Reshape(3,4)), a.MatMul(Arange(3).ToDType(Float32)))
	fmt.Println(Addmm(Ones([]int{4}), a, b, 2, 1), Arange(24).Reshape(2,3,4).ToDType(Float32).MatMul(b.T()).Shape(), Randn([]int{5,1,2,3}).MatMul(Randn([]int{4,3,2})).Shape(), Arange(3).ToDType(Float64).Dot(Arange(3).ToDType(Float64)))
	fmt.Println(a.Mm(a).Err(), a.Dot(b).Err(), a.ToDType(Float16).Mm(b.ToDType(Float16)))
}
